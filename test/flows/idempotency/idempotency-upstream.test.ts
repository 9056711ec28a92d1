// Idempotency-Key against a scripted OpenAI upstream with a live key (docs/api.md "Errors";
// docs/idempotency.md): one key, many simultaneous requests, one upstream call; upstream failures
// release the key; a stream replays the upstream's bytes; a client that leaves mid-stream leaves
// a key whose result was not kept.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { ProviderHealth } from "../../../src/routing/health.ts";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../../helpers/start-gw.ts";
import type { TestGw } from "../../helpers/test-gw.ts";
import { waitFor } from "../../helpers/wait-for.ts";

const MODEL = "openai/gpt-4o-mini";
const longText = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");

let upstream: ScriptedUpstream;
let gw: TestGw;
let key: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ gw, upstreams: { openai: upstream }, stop } = await startGw({ upstreams: { openai: openaiUpstream({ content: longText }, "sk-idem") } }));
  key = gw.key({ mode: "live", scopes: ["chat", "requests"] });
});
afterEach(() => {
  upstream.reset();
  gw.deps.health = new ProviderHealth();
});
afterAll(() => stop());

let seq = 0;
const newKey = () => `up-${Date.now()}-${++seq}`;
const body = (content: string, extra: Record<string, unknown> = {}) => ({ model: MODEL, messages: [{ role: "user", content }], ...extra });
const chat = (idemKey: string, payload: unknown, init: RequestInit = {}) =>
  fetch(`${gw.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "idempotency-key": idemKey },
    body: JSON.stringify(payload),
    ...init,
  });

describe('the claim is atomic (docs/idempotency.md "States and answers")', () => {
  test("20 simultaneous requests with one key reach the upstream exactly once; the others get 409 or the replay", async () => {
    upstream.script({ delayMs: 150 });
    const idemKey = newKey();
    const responses = await Promise.all(Array.from({ length: 20 }, () => chat(idemKey, body("Race for it"))));
    const results = await Promise.all(responses.map(async (r) => ({ status: r.status, replayed: r.headers.get("idempotent-replayed"), id: r.headers.get("x-gw-request-id"), text: await r.text() })));
    expect(upstream.callCount("/chat/completions")).toBe(1);
    const originals = results.filter((r) => r.status === 200 && r.replayed === null);
    expect(originals).toHaveLength(1);
    for (const r of results) {
      if (r === originals[0]) continue;
      if (r.status === 409) {
        expect((JSON.parse(r.text) as { error: { code: string } }).error.code).toBe("conflict");
      } else {
        expect(r).toMatchObject({ status: 200, replayed: "true", id: originals[0]!.id, text: originals[0]!.text });
      }
    }
    // Once the first has finished, the key replays.
    const later = await chat(idemKey, body("Race for it"));
    expect(later.headers.get("idempotent-replayed")).toBe("true");
    expect(await later.text()).toBe(originals[0]!.text);
    expect(upstream.callCount("/chat/completions")).toBe(1);
  });
});

describe("docs/idempotency.md: upstream failures release the key", () => {
  test("a 5xx that exhausts the upstream is not kept: the retry with the same key calls the upstream again", async () => {
    upstream.script({ status: 500 }, 2); // the first try and its one retry
    const idemKey = newKey();
    const first = await chat(idemKey, body("Flaky"));
    expect(first.status).toBeGreaterThanOrEqual(500);
    const calls = upstream.callCount();
    expect(calls).toBeGreaterThan(0);
    expect(gw.deps.repos.idempotency.get(gw.projectId, idemKey)).toBeNull();
    const retry = await chat(idemKey, body("Flaky"));
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(upstream.callCount()).toBe(calls + 1);
    // The success is kept from then on.
    expect((await chat(idemKey, body("Flaky"))).headers.get("idempotent-replayed")).toBe("true");
    expect(upstream.callCount()).toBe(calls + 1);
  });

  test("an upstream 429 is not kept either", async () => {
    upstream.script({ status: 429, headers: { "retry-after": "1" } }, 5);
    const idemKey = newKey();
    expect((await chat(idemKey, body("Slow down"))).status).toBe(429);
    upstream.reset();
    const retry = await chat(idemKey, body("Slow down"));
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(upstream.callCount()).toBe(1);
  });
});

describe("docs/idempotency.md: streams", () => {
  test("an upstream stream replays the exact bytes sent, without calling the upstream again", async () => {
    const idemKey = newKey();
    const first = await chat(idemKey, body("Stream through", { stream: true }));
    const bytes = await first.text();
    expect(bytes).toContain("chat.completion.chunk");
    const again = await chat(idemKey, body("Stream through", { stream: true }));
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("content-type")).toStartWith("text/event-stream");
    expect(await again.text()).toBe(bytes);
    expect(upstream.callCount()).toBe(1);
  });

  describe("a client that leaves mid-stream", () => {
    let paced: ScriptedUpstream;
    let pgw: TestGw;
    let pkey: string;
    let pstop: () => Promise<void>;
    beforeAll(async () => {
      ({ gw: pgw, upstreams: { openai: paced }, stop: pstop } = await startGw({
        upstreams: { openai: openaiUpstream({ chunkDelayMs: 25, content: longText }, "sk-paced") },
      }));
      pkey = pgw.key({ mode: "live", scopes: ["chat", "requests"] });
    });
    afterAll(() => pstop());

    test("leaves a key whose result was not kept: 409 afterwards, and the upstream is not called again", async () => {
      const idemKey = newKey();
      const send = (signal?: AbortSignal) =>
        fetch(`${pgw.url}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${pkey}`, "idempotency-key": idemKey },
          body: JSON.stringify(body("A long story, then I leave", { stream: true })),
          ...(signal ? { signal } : {}),
        });
      const controller = new AbortController();
      const res = await send(controller.signal);
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let received = "";
      while ((received.match(/data: /g) ?? []).length < 3) {
        const { value, done } = await reader.read();
        if (done) break;
        received += decoder.decode(value, { stream: true });
      }
      controller.abort();
      await reader.cancel().catch(() => undefined);

      expect(await waitFor(() => pgw.deps.repos.idempotency.get(pgw.projectId, idemKey)?.state === "not_kept")).toBe(true);
      const retry = await send();
      expect(retry.status).toBe(409);
      const error = ((await retry.json()) as { error: { code: string; message: string } }).error;
      expect(error.code).toBe("conflict");
      expect(error.message).toContain("not kept");
      expect(paced.callCount()).toBe(1);
    });
  });
});
