// Fallback across two OpenAI-compatible providers and the errors gw answers when upstreams fail:
// which failures fall back, which do not, the public codes, time-outs, streams cut mid-way and
// clients that leave (docs/routing.md "Attempts and fallbacks"; docs/api.md "Errors").
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { ProviderHealth } from "../../../src/routing/health.ts";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { fallbackPair, openaiUpstream, startGw } from "../../helpers/start-gw.ts";
import { type TestGw, post } from "../../helpers/test-gw.ts";
import { requestDetail, sseData } from "../../helpers/flow-helpers.ts";
import { waitFor } from "../../helpers/wait-for.ts";

// gw-auto lists openai/gpt-4o-mini first and deepseek/deepseek-chat later; with only these two
// providers enabled the ranked list is exactly [A: openai, B: deepseek].
const FIRST = "openai/gpt-4o-mini";
const SECOND = "deepseek/deepseek-chat";
const TIMEOUT_MS = 400;

let a: ScriptedUpstream;
let b: ScriptedUpstream;
let gw: TestGw;
let key: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ gw, upstreams: { openai: a, deepseek: b }, stop } = await startGw({
    upstreams: fallbackPair(),
    env: { GW_UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS) },
  }));
  key = gw.key({ mode: "live", scopes: ["chat", "requests"] });
});
afterEach(() => {
  a.reset();
  b.reset();
  // Each case starts with healthy providers: the failures scripted here would otherwise open
  // circuits for the next cases (provider health has its own tests).
  gw.deps.health = new ProviderHealth();
});
afterAll(() => stop());

const user = (content: string) => [{ role: "user", content }];
const chat = (body: Record<string, unknown>) => post(`${gw.url}/chat/completions`, key, body);
/** The first choice is FIRST (openai, A); its fallback an equal-or-better model at another provider: SECOND (B). */
const auto = (content: string, extra: Record<string, unknown> = {}) => chat({ model: FIRST, messages: user(content), ...extra });

interface ErrorBody {
  error: { code: string; type: string; category: string; request_id: string; message: string };
}

test("precondition: SECOND is at least as good as FIRST overall and cheaper, so it is FIRST's fallback", () => {
  const first = gw.deps.catalog.get(FIRST)!;
  const second = gw.deps.catalog.get(SECOND)!;
  expect(second.quality.general).toBeGreaterThanOrEqual(first.quality.general);
  expect(second.provider).not.toBe(first.provider);
});

describe('fallback to the next provider (docs/routing.md "Attempts and fallbacks")', () => {
  test("A answers 503: B answers 200, gw.fallbacks 1, the trace lists A error then B ok", async () => {
    a.script({ status: 503 }, 2); // the first try and its one retry (docs/routing.md)
    const res = await auto("Fallback on an outage please");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { model: string; gw: { fallbacks: number; provider: string; request_id: string } };
    expect(body.model).toBe(SECOND);
    expect(body.gw.provider).toBe("deepseek");
    expect(body.gw.fallbacks).toBe(1);
    expect(a.callCount()).toBe(2);
    expect(b.callCount()).toBe(1);
    expect(b.calls[0]?.headers.authorization).toBe("Bearer sk-b");
    expect((b.calls[0]?.body as { model: string }).model).toBe("deepseek-chat");

    await gw.drain();
    const { body: row } = await requestDetail(gw.url, key, body.gw.request_id);
    expect(row.status).toBe(200);
    expect(row.fallbacks).toBe(1);
    expect(row.provider).toBe("deepseek");
    // The first try, its retry (same model: fallbacks still 1), then B.
    expect(row.trace.attempts).toHaveLength(3);
    for (const attempt of row.trace.attempts.slice(0, 2)) {
      expect(attempt).toMatchObject({ model: FIRST, provider: "openai", status: "error", error_code: "provider_unavailable", upstream_status: 503 });
    }
    expect(row.trace.attempts[2]).toMatchObject({ model: SECOND, provider: "deepseek", status: "ok", error_code: null });
    const llm = row.trace.spans.filter((s) => s.name === "llm");
    expect(llm.map((s) => s.status)).toEqual(["error", "error", "ok"]);
  });

  test("A answers 429 with Retry-After: fallback too, and the answer carries no Retry-After", async () => {
    a.script({ status: 429, headers: { "retry-after": "30" } });
    const res = await auto("Fallback on a rate limit please");
    expect(res.status).toBe(200);
    expect(res.headers.get("retry-after")).toBeNull();
    const body = (await res.json()) as { gw: { fallbacks: number; provider: string; request_id: string } };
    expect(body.gw).toMatchObject({ fallbacks: 1, provider: "deepseek" });
    await gw.drain();
    const { body: row } = await requestDetail(gw.url, key, body.gw.request_id);
    expect(row.trace.attempts[0]).toMatchObject({ status: "error", error_code: "rate_limited", failure_class: "rate_limit" });
  });

  test("A times out (headers later than the transport time-out): B answers", async () => {
    a.script({ delayMs: TIMEOUT_MS * 5 });
    const res = await auto("Fallback on a slow provider please");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { gw: { fallbacks: number; provider: string } };
    expect(body.gw).toMatchObject({ fallbacks: 1, provider: "deepseek" });
    // gw gave up on A: its request was aborted.
    expect(await waitFor(() => a.aborted === 1)).toBe(true);
  });

  test("a stream whose first provider fails before the stream starts falls back as well", async () => {
    a.script({ status: 503 }, 2);
    const res = await auto("Stream with a fallback please", { stream: true });
    expect(res.status).toBe(200);
    const lines = await sseData(res);
    expect(lines.at(-1)).toBe("[DONE]");
    const summary = JSON.parse(lines.at(-2)!) as { object: string; gw: { fallbacks: number; provider: string } };
    expect(summary.object).toBe("gw.summary");
    expect(summary.gw).toMatchObject({ fallbacks: 1, provider: "deepseek" });
  });
});

describe('failures that end the request (docs/api.md "Errors")', () => {
  test("A answers 400 (caller fault): no fallback, 400 invalid_request, B never called", async () => {
    a.script({ status: 400, body: { error: { message: "Invalid 'temperature'.", type: "invalid_request_error", param: "temperature", code: null } } });
    const res = await auto("A request the provider rejects");
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toContain("Invalid 'temperature'.");
    expect(a.callCount()).toBe(1);
    expect(b.callCount()).toBe(0);
    await gw.drain();
    const { body: row } = await requestDetail(gw.url, key, body.error.request_id);
    expect(row.status).toBe(400);
    expect(row.trace.attempts).toHaveLength(1);
    // The upstream's own words go to the caller only, never into the log.
    expect(row.error?.message ?? "").not.toContain("temperature");
  });

  const allFail = [
    { upstream: 500, status: 502, code: "upstream_error", category: "UPSTREAM_ERROR" },
    { upstream: 503, status: 503, code: "provider_unavailable", category: "PROVIDER_UNAVAILABLE" },
    { upstream: 429, status: 429, code: "rate_limited", category: "RATE_LIMIT" },
  ] as const;
  for (const c of allFail) {
    test(`every upstream answers ${c.upstream}: ${c.status} ${c.code}`, async () => {
      const headers = c.upstream === 429 ? { "retry-after": "7" } : undefined;
      // A 5xx is retried once on the same model; a 429 moves on at once.
      const tries = c.upstream >= 500 ? 2 : 1;
      a.script({ status: c.upstream, headers }, tries);
      b.script({ status: c.upstream, headers }, tries);
      const res = await auto(`Everything fails with ${c.upstream}`);
      expect(res.status).toBe(c.status);
      const body = (await res.json()) as ErrorBody;
      expect(body.error).toMatchObject({ code: c.code, category: c.category });
      expect(res.headers.get("x-gw-request-id")).toBe(body.error.request_id);
      if (c.upstream === 429) expect(res.headers.get("retry-after")).toBe("7");
      expect(a.callCount()).toBe(tries);
      expect(b.callCount()).toBe(tries);
      await gw.drain();
      const { body: row } = await requestDetail(gw.url, key, body.error.request_id);
      expect(row.status).toBe(c.status);
      expect(row.error_category).toBe(c.category);
      expect(row.trace.attempts.map((x) => [x.provider, x.status, x.upstream_status])).toEqual([
        ...Array(tries).fill(["openai", "error", c.upstream]),
        ...Array(tries).fill(["deepseek", "error", c.upstream]),
      ]);
    });
  }

  test("every upstream slower than the transport time-out: 504 timeout", async () => {
    a.script({ delayMs: TIMEOUT_MS * 10 });
    b.script({ delayMs: TIMEOUT_MS * 10 });
    const started = performance.now();
    const res = await auto("Everything is too slow");
    const elapsed = performance.now() - started;
    expect(res.status).toBe(504);
    const body = (await res.json()) as ErrorBody;
    expect(body.error).toMatchObject({ code: "timeout", type: "timeout_error", category: "TIMEOUT" });
    // Two attempts, each cut at the time-out, well before the upstreams would have answered.
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS * 2 - 50);
    expect(elapsed).toBeLessThan(TIMEOUT_MS * 10);
    expect(await waitFor(() => a.aborted === 1 && b.aborted === 1)).toBe(true);
  });

  test("a stream cut mid-way: some chunks, then an error line, then [DONE]", async () => {
    a.script({ cutAfterChunks: 3 });
    const res = await chat({ model: FIRST, messages: user("Cut this stream after a few words please"), stream: true });
    expect(res.status).toBe(200);
    const requestId = res.headers.get("x-gw-request-id")!;
    const lines = await sseData(res);
    expect(lines.at(-1)).toBe("[DONE]");
    const chunks = lines.slice(0, -2).map((l) => JSON.parse(l) as { object: string });
    expect(chunks).toHaveLength(3);
    for (const c of chunks) expect(c.object).toBe("chat.completion.chunk");
    const last = JSON.parse(lines.at(-2)!) as ErrorBody;
    expect(last.error.code).toBe("upstream_error");
    expect(last.error.request_id).toBe(requestId);
    expect(lines.some((l) => l.includes("gw.summary"))).toBe(false);
    expect(b.callCount()).toBe(0);

    await gw.drain();
    const { body: row } = await requestDetail(gw.url, key, requestId);
    expect(row.error?.code).toBe("upstream_error");
    expect(row.trace.attempts[0]).toMatchObject({ provider: "openai", status: "error", error_code: "upstream_error" });
  });
});

describe('paced streams, slow streams and clients that leave (docs/availability.md "Upstream calls and streams")', () => {
  let paced: ScriptedUpstream;
  let pgw: TestGw;
  let pkey: string;
  let pstop: () => Promise<void>;
  const longText = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");

  beforeAll(async () => {
    // The transport time-out bounds the wait for headers only, never a stream already flowing.
    ({ gw: pgw, upstreams: { openai: paced }, stop: pstop } = await startGw({
      upstreams: { openai: openaiUpstream({ chunkDelayMs: 25, content: longText }, "sk-paced") }, env: { GW_UPSTREAM_TIMEOUT_MS: "300" },
    }));
    pkey = pgw.key({ mode: "live", scopes: ["chat", "requests"] });
  });
  afterEach(() => paced.reset());
  afterAll(() => pstop());

  test("a stream that lasts longer than the header time-out completes", async () => {
    const started = performance.now();
    const res = await post(`${pgw.url}/chat/completions`, pkey, { model: FIRST, messages: user("Tell a long story"), stream: true });
    const lines = await sseData(res);
    expect(performance.now() - started).toBeGreaterThan(300);
    expect(lines.at(-1)).toBe("[DONE]");
    const summary = JSON.parse(lines.at(-2)!) as { object: string; gw: { cost: number } };
    expect(summary.object).toBe("gw.summary");
    const text = lines
      .slice(0, -2)
      .map((l) => (JSON.parse(l) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? "")
      .join("");
    expect(text).toBe(longText);
  });

  test("a client that aborts mid-stream aborts the upstream, and the request is still logged", async () => {
    const controller = new AbortController();
    const res = await fetch(`${pgw.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${pkey}` },
      body: JSON.stringify({ model: FIRST, messages: user("Start a long story then I leave"), stream: true }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get("x-gw-request-id")!;
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let received = "";
    while ((received.match(/data: /g) ?? []).length < 3) {
      const { value, done } = await reader.read();
      if (done) break;
      received += decoder.decode(value, { stream: true });
    }
    expect(received).toContain("chat.completion.chunk");
    controller.abort();
    await reader.cancel().catch(() => undefined);

    expect(await waitFor(() => paced.aborted === 1)).toBe(true);
    let status = 0;
    expect(
      await waitFor(async () => {
        await pgw.drain();
        status = (await requestDetail(pgw.url, pkey, requestId)).status;
        return status === 200;
      }),
    ).toBe(true);
    const { body: row } = await requestDetail(pgw.url, pkey, requestId);
    expect(row.provider).toBe("openai");
    expect(row.trace.client_disconnected).toBe(true);
    expect(row.output_tokens).toBeGreaterThan(0);
    expect(row.output_tokens).toBeLessThan(40);
  });
});
