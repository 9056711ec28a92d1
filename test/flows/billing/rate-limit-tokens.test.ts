// Tokens per minute through a real server (issue 9 item 5, docs/rate-limits.md): admission on the
// estimate (input plus output bound), large prompts counted exactly, the correction when the
// request is recorded (JSON and streams), and recovery with an injected clock.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RateLimiter } from "../../../src/billing/rate-limit.ts";
import { ADMIN_TOKEN, post, startTestGw, type TestGw } from "../../helpers/test-gw.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw();
});
afterAll(() => gw.stop());

/** A fresh project whose answers are never cached, so each request's usage is a model's. */
async function keyWith(rateLimits: Record<string, unknown>): Promise<string> {
  const project = gw.newProject("tpm");
  const res = await fetch(`${gw.url}/admin/projects/${project}`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ policy: { cache: false, rate_limits: rateLimits } }),
  });
  expect(res.status).toBe(200);
  return gw.key({ projectId: project, scopes: ["chat", "requests"] });
}
const chat = (key: string, content: string, extra: Record<string, unknown> = {}) =>
  post(`${gw.url}/chat/completions`, key, { messages: [{ role: "user", content }], ...extra });
const remainingTokens = (res: Response) => Number(res.headers.get("x-ratelimit-remaining-tokens"));

describe("issue 9.5: tokens per minute", () => {
  test("large prompts: counted exactly when the byte bound would refuse, then 429 while the minute is used", async () => {
    const key = await keyWith({ tpm: 3000 });
    const prompt = "apple ".repeat(2000); // about 2,000 tokens in 12,000 bytes
    const first = await chat(key, prompt, { max_tokens: 100 });
    expect(first.status).toBe(200);
    const used = 3000 - remainingTokens(first);
    expect(used).toBeGreaterThan(2000);
    expect(used).toBeLessThan(2200); // the exact count plus max_tokens, not the byte bound
    const refused = await chat(key, prompt, { max_tokens: 100 });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("x-ratelimit-limit-tokens")).toBe("3000");
    const { error } = (await refused.json()) as { error: { message: string; code: string } };
    expect(error.code).toBe("rate_limited");
    expect(error.message).toContain("3000 tokens per minute");
  });

  test("a request larger than a whole minute's tokens is refused without Retry-After", async () => {
    const key = await keyWith({ tpm: 3000 });
    const refused = await chat(key, "apple ".repeat(4000), { max_tokens: 100 });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeNull();
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("lower max_tokens");
  });

  test("settle: an answer shorter than max_tokens gives the difference back", async () => {
    const key = await keyWith({ tpm: 1000 });
    const first = await chat(key, "hello there", { max_tokens: 600 });
    expect(first.status).toBe(200);
    expect(remainingTokens(first)).toBeLessThan(400); // admitted on the estimate
    // Without the correction two estimates (over 1,200) would not fit in 1,000.
    const second = await chat(key, "hello again", { max_tokens: 600 });
    expect(second.status).toBe(200);
    expect(remainingTokens(second)).toBeGreaterThan(250);
    // Both answers were settled to their usage (tens of tokens), which still counts within the minute.
    const tooMuch = await chat(key, "and once more", { max_tokens: 950 });
    expect(tooMuch.status).toBe(429);
    expect(tooMuch.headers.get("retry-after")).not.toBeNull();
  });

  test("settle after a stream: what was produced is counted once the stream ends", async () => {
    const key = await keyWith({ tpm: 1000 });
    const stream = await chat(key, "hello there", { max_tokens: 600, stream: true });
    expect(stream.status).toBe(200);
    await stream.text();
    expect((await chat(key, "hello again", { max_tokens: 600 })).status).toBe(200);
  });

  test("a cache hit takes no model tokens: its estimate is given back", async () => {
    const project = gw.newProject("tpm-cache");
    await fetch(`${gw.url}/admin/projects/${project}`, {
      method: "PATCH", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ policy: { rate_limits: { tpm: 1000 } } }),
    });
    const key = gw.key({ projectId: project, scopes: ["chat"] });
    const body = { messages: [{ role: "user", content: "what is the capital of France?" }], max_tokens: 400 };
    const first = await post(`${gw.url}/chat/completions`, key, body);
    expect(first.status).toBe(200);
    const hit = await post(`${gw.url}/chat/completions`, key, body);
    expect(hit.headers.get("x-gw-cache")).toBe("exact");
    // The hit was admitted on its estimate, then settled to zero: only the first answer's usage
    // is still counted when a third request (estimate one token more than the first) comes in.
    const used = ((await first.json()) as { usage: { total_tokens: number } }).usage.total_tokens;
    const third = await post(`${gw.url}/chat/completions`, key, { ...body, max_tokens: 401 });
    expect(third.status).toBe(200);
    const expected = remainingTokens(first) - used - 1;
    expect(remainingTokens(third)).toBeGreaterThanOrEqual(expected);
    expect(remainingTokens(third)).toBeLessThanOrEqual(expected + 2); // refill during the test
  });
});

describe("issue 9.5: recovery after the window (injected clock)", () => {
  test("a refused key is admitted again once Retry-After has passed", async () => {
    const clock = { t: 0 };
    const limiter = new RateLimiter({ now: () => clock.t });
    const listeners = gw.deps.requestListeners;
    listeners[listeners.indexOf(gw.deps.rateLimits.listener)] = limiter.listener;
    const previous = gw.deps.rateLimits;
    gw.deps.rateLimits = limiter;
    try {
      const key = await keyWith({ rpm: 2, tpm: 100_000 });
      expect((await chat(key, "one")).status).toBe(200);
      expect((await chat(key, "two")).status).toBe(200);
      const refused = await chat(key, "three");
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("30");
      clock.t += 29_000;
      expect((await chat(key, "three")).status).toBe(429);
      clock.t += 1_000;
      const back = await chat(key, "three");
      expect(back.status).toBe(200);
      expect(back.headers.get("x-ratelimit-remaining-requests")).toBe("0");
      clock.t += 60_000;
      expect((await chat(key, "four")).headers.get("x-ratelimit-remaining-requests")).toBe("1");
    } finally {
      listeners[listeners.indexOf(limiter.listener)] = previous.listener;
      gw.deps.rateLimits = previous;
    }
  });
});
