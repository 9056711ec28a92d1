// Issue 15 item 6: every request field that can change the answer is in the exact cache key or
// makes the request uncacheable. Through the real server and a scripted upstream: a request with
// the field never gets the plain request's stored answer, and never leaves one for it.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../helpers/start-gw.ts";
import { post, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
let up: ScriptedUpstream;
let key: string;
let stop: () => Promise<void>;
let n = 0;

beforeAll(async () => {
  ({ gw, upstreams: { openai: up }, stop } = await startGw({ upstreams: { openai: openaiUpstream() } }));
  key = gw.key({ mode: "live", scopes: ["chat", "requests"] });
});
afterAll(() => stop());
beforeEach(() => up.reset());

/** Fields that change the answer, each with a value a client would send. */
const KEYED: Record<string, unknown> = {
  logit_bias: { "1734": -100 },
  seed: 7,
  presence_penalty: 1.5,
  frequency_penalty: -0.5,
  logprobs: true,
  top_logprobs: 3,
  reasoning_effort: "high",
  prediction: { type: "content", content: "The capital is" },
  modalities: ["text"],
  service_tier: "flex",
  verbosity: "low",
  tool_choice: "none",
  optimization: { mode: "balanced" },
  some_future_field: { x: 1 },
};

const fresh = () => `Name a large city on a river (case ${++n}).`;
const body = (content: string, extra: Record<string, unknown> = {}) => ({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }], ...extra });
async function ask(b: unknown): Promise<string | null> {
  const res = await post(`${gw.url}/chat/completions`, key, b);
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  return res.headers.get("x-gw-cache");
}

describe("fields that change the answer join the exact key", () => {
  for (const [field, value] of Object.entries(KEYED)) {
    test(`${field}: the plain answer is not served to it, nor its answer to the plain request`, async () => {
      const a = fresh();
      expect(await ask(body(a))).toBe("miss");
      expect(await ask(body(a, { [field]: value }))).toBe("miss");
      // Both are stored under their own keys: each repeat hits its own answer.
      expect(await ask(body(a, { [field]: value }))).toBe("exact");
      expect(await ask(body(a))).toBe("exact");
      expect(up.callCount("/v1/chat/completions")).toBe(2);
      const b = fresh();
      expect(await ask(body(b, { [field]: value }))).toBe("miss");
      expect(await ask(body(b))).toBe("miss");
      expect(up.callCount("/v1/chat/completions")).toBe(4);
    });
  }

  test("a different value of a keyed field is a different key (seed 7 vs seed 8)", async () => {
    const q = fresh();
    expect(await ask(body(q, { seed: 7 }))).toBe("miss");
    expect(await ask(body(q, { seed: 8 }))).toBe("miss");
    expect(await ask(body(q, { seed: 7 }))).toBe("exact");
  });

  test("fields that cannot change the answer still hit (metadata, stream_options, store, n: 1, null seed)", async () => {
    const q = fresh();
    expect(await ask(body(q))).toBe("miss");
    expect(await ask(body(q, { metadata: { step: "x" }, store: true, n: 1, seed: null, tags: ["t"] }))).toBe("exact");
  });
});

describe("fields that make a request uncacheable", () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["audio output", { modalities: ["text", "audio"], audio: { voice: "alloy", format: "wav" } }, "audio_output"],
    ["web search", { web_search_options: {} }, "web_search"],
  ];
  for (const [name, extra, reason] of cases) {
    test(`${name}: never read nor stored (miss_reason ${reason})`, async () => {
      const q = fresh();
      expect(await ask(body(q))).toBe("miss");
      const res = await post(`${gw.url}/chat/completions`, key, body(q, extra));
      expect(res.status).toBe(200);
      const answer = (await res.json()) as { gw: { cache: string | null; request_id: string } };
      expect(answer.gw.cache).toBeNull();
      await post(`${gw.url}/chat/completions`, key, body(q, extra)).then((r) => r.arrayBuffer());
      expect(up.callCount("/v1/chat/completions")).toBe(3);
      await gw.drain();
      const row = (await (await fetch(`${gw.url}/requests/${answer.gw.request_id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { trace: { cache: Record<string, unknown> } };
      expect(row.trace.cache).toMatchObject({ result: "skip", miss_reason: reason });
    });
  }
});
