// The request's overall deadline (issue 4 item 6): per-attempt time-outs cannot add up past
// GW_REQUEST_TIMEOUT_MS across fallbacks; the last attempt gets only what is left.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../../helpers/start-gw.ts";
import { post, startTestGw, type TestGw } from "../../helpers/test-gw.ts";
import { requestDetail } from "../../helpers/flow-helpers.ts";

const ATTEMPT_MS = 300;
const REQUEST_MS = 450;

let slow: ScriptedUpstream;
let gw: TestGw;
let stop: () => Promise<void>;
beforeAll(async () => {
  // Four enabled providers, all answered by one slow upstream: four candidates for gw-auto.
  const one = openaiUpstream({ delayMs: ATTEMPT_MS * 10 });
  ({ gw, upstreams: { openai: slow }, stop } = await startGw({
    upstreams: { openai: one, deepseek: one, groq: one, mistral: one },
    env: { GW_UPSTREAM_TIMEOUT_MS: String(ATTEMPT_MS), GW_REQUEST_TIMEOUT_MS: String(REQUEST_MS) },
  }));
});
afterAll(() => stop());

describe("GW_REQUEST_TIMEOUT_MS", () => {
  test("a profile with several candidates stops after the deadline: 504 timeout after two attempts, not one per candidate", async () => {
    const key = gw.key({ mode: "live", scopes: ["chat", "requests"] });
    const res = await post(`${gw.url}/chat/completions`, key, { model: "gw-auto", messages: [{ role: "user", content: "hello there" }] });
    expect(res.status).toBe(504);
    const body = (await res.json()) as { error: { code: string; request_id: string } };
    expect(body.error.code).toBe("timeout");
    await gw.drain();
    const { body: row } = await requestDetail(gw.url, key, body.error.request_id);
    // More than two models could serve it: the deadline, not the candidate list, ended it.
    expect(row.trace.candidates.filter((c) => c.rank !== null).length).toBeGreaterThan(2);
    expect(row.trace.attempts.map((a) => a.error_code)).toEqual(["timeout", "timeout"]);
    expect(slow.callCount()).toBe(2);
    // The second attempt was cut at the request's deadline, well before its own time-out.
    expect(row.trace.attempts[1]!.duration_ms).toBeLessThan(ATTEMPT_MS);
  });

  test("an invalid value is refused at start", async () => {
    await expect(startTestGw({ GW_REQUEST_TIMEOUT_MS: "soon" })).rejects.toThrow("GW_REQUEST_TIMEOUT_MS");
  });
});
