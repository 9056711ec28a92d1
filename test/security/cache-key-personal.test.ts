// Issue 15 item 6: personal questions phrased without "my" are never cached project-wide when no
// `user` is set (docs/cache.md "Classification"); with a `user` they are cached for that user only.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../helpers/start-gw.ts";
import { post, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
let up: ScriptedUpstream;
let key: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ gw, upstreams: { openai: up }, stop } = await startGw({ upstreams: { openai: openaiUpstream() } }));
  key = gw.key({ mode: "live", scopes: ["chat", "requests"] });
});
afterAll(() => stop());
beforeEach(() => up.reset());

const body = (content: string, extra: Record<string, unknown> = {}) => ({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }], ...extra });
async function ask(b: unknown): Promise<{ cache: string | null; id: string }> {
  const res = await post(`${gw.url}/chat/completions`, key, b);
  expect(res.status).toBe(200);
  const answer = (await res.json()) as { gw: { request_id: string } };
  return { cache: res.headers.get("x-gw-cache"), id: answer.gw.request_id };
}

describe("personal phrasings without a possessive", () => {
  for (const q of ["whats the balance on acct 4471", "List the orders placed by me", "Show the account of mine", "Konto 449120 gesperrt?", "los pedidos hechos por mí"]) {
    test(`"${q}" without a user: never read nor stored (personal_without_user)`, async () => {
      const first = await ask(body(q));
      const second = await ask(body(q));
      expect(second.cache).not.toBe("exact");
      expect(up.callCount("/v1/chat/completions")).toBe(2);
      await gw.drain();
      const row = (await (await fetch(`${gw.url}/requests/${first.id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { trace: { cache: Record<string, unknown> } };
      expect(row.trace.cache).toMatchObject({ result: "skip", miss_reason: "personal_without_user" });
    });
  }

  test("with a user the answer is cached for that user, and another user does not get it", async () => {
    const q = "whats the balance on acct 5520";
    expect((await ask(body(q, { user: "u-1" }))).cache).toBe("miss");
    expect((await ask(body(q, { user: "u-1" }))).cache).toBe("exact");
    expect((await ask(body(q, { user: "u-2" }))).cache).toBe("miss");
    expect(up.callCount("/v1/chat/completions")).toBe(2);
  });

  test("a general question about accounts is still cached project-wide", async () => {
    const q = "How many accounts can a small company open at one bank?";
    expect((await ask(body(q))).cache).toBe("miss");
    expect((await ask(body(q))).cache).toBe("exact");
  });
});
