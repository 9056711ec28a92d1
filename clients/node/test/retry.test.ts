// Safe retries against a real gw and a scripted OpenAI upstream (live key): one Idempotency-Key per
// call, reused by every retry, so a retry after a lost answer reaches the upstream once and gets the
// replay; 409, 429 and 5xx are retried (Retry-After honoured), other 4xx never.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { ConflictError, ConnectionError, Gw, InvalidRequestError, RateLimitedError, UpstreamError } from "../dist/index.js";
import { backoffMs, retryAfterMs } from "../dist/core.js";
import type { ScriptedUpstream } from "../../../test/helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../../../test/helpers/start-gw.ts";
import type { TestGw } from "../../../test/helpers/test-gw.ts";
import { waitFor } from "../../../test/helpers/wait-for.ts";

const MODEL = "openai/gpt-4o-mini";
let upstream: ScriptedUpstream;
let gw: TestGw;
let liveKey: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ gw, upstreams: { openai: upstream }, stop } = await startGw({ upstreams: { openai: openaiUpstream({}, "sk-node") } }));
  liveKey = gw.key({ mode: "live", scopes: ["chat", "requests"] });
});
afterEach(() => upstream.reset());
afterAll(() => stop());

interface Attempt {
  key: string | null;
  status: number | "lost";
  replayed: string | null;
  retryAfter?: string | null;
}

/** A client whose fetch records every attempt; `lose(n)` makes attempt n's answer never arrive. */
function recordingClient(apiKey: string, options: { maxRetries?: number; lose?: (attempt: number, sent: Promise<Response>) => Promise<never> | null } = {}) {
  const attempts: Attempt[] = [];
  const client = new Gw({
    apiKey, baseURL: gw.url, maxRetries: options.maxRetries ?? 2,
    fetch: async (input, init) => {
      const key = new Headers(init?.headers).get("idempotency-key");
      const sent = fetch(input, init);
      const lost = options.lose?.(attempts.length, sent);
      if (lost) {
        attempts.push({ key, status: "lost", replayed: null });
        return lost;
      }
      const res = await sent;
      attempts.push({ key, status: res.status, replayed: res.headers.get("idempotent-replayed"), retryAfter: res.headers.get("retry-after") });
      return res;
    },
  });
  return { client, attempts };
}

const messages = [{ role: "user" as const, content: "Tell me about retries" }];

describe("safe retries", () => {
  test("the first answer is lost after the upstream was reached: the retry gets 409 while it runs, then the replay; the upstream is called once", async () => {
    upstream.script({ delayMs: 2500 });
    const { client, attempts } = recordingClient(liveKey, {
      maxRetries: 6,
      // The request reaches gw and the upstream; the connection then drops before the answer.
      lose: (n, sent) => (n === 0 ? waitFor(() => upstream.callCount() === 1).then(() => {
        void sent.catch(() => undefined);
        throw new TypeError("fetch failed: socket hang up");
      }) : null),
    });
    const { data, response } = await client.chat.completions.create({ model: MODEL, messages }).withResponse();
    expect(response.headers.get("idempotent-replayed")).toBe("true");
    expect(data.choices[0]?.message.content).toEqual(expect.any(String));
    expect(attempts[0]?.status).toBe("lost");
    expect(attempts.map((a) => a.status)).toContain(409);
    expect(attempts.at(-1)).toMatchObject({ status: 200, replayed: "true" });
    expect(new Set(attempts.map((a) => a.key)).size).toBe(1);
    expect(attempts[0]?.key).toEqual(expect.any(String));
    expect(upstream.callCount("/chat/completions")).toBe(1);
  });

  test("the same key while the first call runs raises ConflictError (409) once retries are spent", async () => {
    upstream.script({ delayMs: 1000 });
    const client = new Gw({ apiKey: liveKey, baseURL: gw.url, maxRetries: 0 });
    const idempotencyKey = `node-${crypto.randomUUID()}`;
    const first = client.chat.completions.create({ model: MODEL, messages }, { idempotencyKey, cache: "off" });
    await waitFor(() => upstream.callCount() === 1);
    const err = await client.chat.completions.create({ model: MODEL, messages }, { idempotencyKey, cache: "off" }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect(err).toMatchObject({ status: 409, code: "conflict" });
    expect((await first).gw.provider).toBe("openai");
  });

  test("429 is retried maxRetries times with the same key, then raises RateLimitedError", async () => {
    const testKey = gw.key({ mode: "test" });
    const { client, attempts } = recordingClient(testKey, { maxRetries: 2 });
    const err = await client.chat.completions.create({ model: "gw-test:rate_limited", messages }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(attempts.map((a) => a.status)).toEqual([429, 429, 429]);
    expect(attempts[0]?.retryAfter).toMatch(/^\d+$/);
    expect(new Set(attempts.map((a) => a.key)).size).toBe(1);
  });

  test("502 from an upstream that recovers: retried, and the second attempt answers", async () => {
    upstream.script({ status: 500 }, 3);
    const { client, attempts } = recordingClient(liveKey, { maxRetries: 2 });
    const completion = await client.chat.completions.create({ model: MODEL, messages }, { cache: "off" });
    expect(completion.gw.provider).toBe("openai");
    expect(attempts.map((a) => a.status)).toEqual([502, 200]);
  });

  test("other 4xx are never retried", async () => {
    const testKey = gw.key({ mode: "test" });
    const { client, attempts } = recordingClient(testKey, { maxRetries: 2 });
    const err = await client.chat.completions.create({ model: "gw-test:invalid_request", messages }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect(attempts).toHaveLength(1);
  });

  test("maxRetries 0 per call: one attempt", async () => {
    const testKey = gw.key({ mode: "test" });
    const { client, attempts } = recordingClient(testKey, { maxRetries: 2 });
    const err = await client.chat.completions.create({ model: "gw-test:upstream_error", messages }, { maxRetries: 0 }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(attempts).toHaveLength(1);
  });

  test("an aborted signal ends the call at once, without retries", async () => {
    let calls = 0;
    const hanging = Bun.serve({ port: 0, fetch: () => (calls++, new Promise<Response>(() => undefined)) });
    try {
      const controller = new AbortController();
      const client = new Gw({ apiKey: "gw_test_x", baseURL: `http://127.0.0.1:${hanging.port}/v1`, maxRetries: 3 });
      const pending = client.models.list({ signal: controller.signal }).then(() => null, (e: unknown) => e);
      await waitFor(() => calls === 1);
      controller.abort();
      const err = await pending;
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).name).toBe("AbortError");
      expect(err).not.toBeInstanceOf(ConnectionError);
      expect(calls).toBe(1);
    } finally {
      await hanging.stop(true);
    }
  });

  test("an unreachable gw: retried, then ConnectionError", async () => {
    const server = Bun.serve({ port: 0, fetch: () => new Response("") });
    const url = `http://127.0.0.1:${server.port}/v1`;
    await server.stop(true);
    let calls = 0;
    const client = new Gw({ apiKey: "gw_test_x", baseURL: url, maxRetries: 1, fetch: (i, init) => (calls++, fetch(i, init)) });
    const err = await client.models.list().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(calls).toBe(2);
  });
});

describe("backoff", () => {
  test("Retry-After in seconds, as an HTTP date, or retry-after-ms; beyond 60 s it is left to the backoff", () => {
    expect(retryAfterMs(new Headers({ "retry-after": "2" }))).toBe(2000);
    expect(retryAfterMs(new Headers({ "retry-after-ms": "150" }))).toBe(150);
    const date = retryAfterMs(new Headers({ "retry-after": new Date(Date.now() + 30_000).toUTCString() }));
    expect(date).toBeGreaterThan(25_000);
    expect(date).toBeLessThanOrEqual(30_000);
    expect(retryAfterMs(new Headers({ "retry-after": "3600" }))).toBeUndefined();
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(retryAfterMs(new Headers())).toBeUndefined();
  });

  test("exponential from 0.5 s, capped at 8 s, with up to a quarter of jitter", () => {
    for (const [retry, full] of [[0, 500], [1, 1000], [2, 2000], [5, 8000], [9, 8000]] as const) {
      const ms = backoffMs(retry);
      expect(ms).toBeLessThanOrEqual(full);
      expect(ms).toBeGreaterThanOrEqual(full * 0.75);
    }
  });
});
