// Passive provider health in the request path (issue 5 item 6): failures open a provider's
// circuit; while it is open its models are skipped without an upstream call (trace.health), the
// fallback serves, and with no fallback the request answers 503 provider_unavailable at once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { fallbackPair, startGw } from "../../helpers/start-gw.ts";
import { post, type TestGw } from "../../helpers/test-gw.ts";
import { requestDetail } from "../../helpers/flow-helpers.ts";

const FIRST = "openai/gpt-4o-mini";
let a: ScriptedUpstream;
let b: ScriptedUpstream;
let gw: TestGw;
let key: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ gw, upstreams: { openai: a, deepseek: b }, stop } = await startGw({
    upstreams: fallbackPair(),
  }));
  key = gw.key({ mode: "live", scopes: ["chat", "requests"] });
});
afterAll(() => stop());

// Cache off: every request must reach the providers for their health to show.
const ask = (model = FIRST) => post(`${gw.url}/chat/completions`, key, { model, messages: [{ role: "user", content: "hello" }] }, { "x-gw-cache": "off" });

describe("provider health (circuit breaker) in the request path", () => {
  test("five 503s in a row open openai's circuit: the next request skips it without calling it", async () => {
    a.script({ status: 503 }, 5);
    for (let i = 0; i < 5; i++) expect((await ask()).status).toBe(200); // each served by the deepseek fallback
    expect(a.callCount()).toBe(5);
    const res = await ask();
    expect(res.status).toBe(200);
    expect(a.callCount()).toBe(5); // skipped: no sixth call upstream
    const body = (await res.json()) as { gw: { provider: string; request_id: string } };
    expect(body.gw.provider).toBe("deepseek");
    await gw.drain();
    const { body: row } = await requestDetail(gw.url, key, body.gw.request_id);
    const trace = row.trace as unknown as { health: { skipped: Array<{ model: string; reason: string }> } };
    expect(trace.health.skipped[0]!.model).toBe(FIRST);
    expect(trace.health.skipped[0]!.reason.length).toBeGreaterThan(0);
    expect(gw.deps.health.snapshot().find((h) => h.key === "openai")?.state).toBe("open");
  });

  test("a profile ranks the unhealthy provider's models last", async () => {
    const res = await ask("gw-auto");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { gw: { provider: string } };
    expect(body.gw.provider).toBe("deepseek");
  });
});
