// Contract tests of test-mode errors on demand (docs/api.md "Test mode") through POST /chat/completions:
// every `gw-test:<name>` answers its status in the error envelope (docs/api.md "Errors"),
// is logged like any failure, and the fallback and stream_error scenarios behave as specified.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGw, type TestGw } from "../helpers/test-gw.ts";
import {
  attemptsOf, chat, expectError, framesOf, json, readSse, requestDetail, spansOf, user, type Json,
} from "./chat-helpers.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw();
});
afterAll(() => gw.stop());

/** The statuses, types and categories of docs/api.md "Errors", written out by hand. */
const ERRORS_ON_DEMAND: ReadonlyArray<readonly [name: string, status: number, type: string, category: string]> = [
  ["invalid_request", 400, "invalid_request_error", "VALIDATION_FAILED"],
  ["blocked_by_policy", 400, "invalid_request_error", "POLICY_BLOCKED"],
  ["budget_exceeded", 402, "billing_error", "BUDGET_EXCEEDED"],
  ["insufficient_credits", 402, "billing_error", "INSUFFICIENT_CREDITS"],
  ["plan_limit", 402, "billing_error", "PLAN_LIMIT"],
  ["rate_limited", 429, "rate_limit_error", "RATE_LIMIT"],
  ["upstream_error", 502, "api_error", "UPSTREAM_ERROR"],
  ["no_model_available", 503, "api_error", "NO_MODEL_AVAILABLE"],
  ["provider_unavailable", 503, "api_error", "PROVIDER_UNAVAILABLE"],
  ["timeout", 504, "timeout_error", "TIMEOUT"],
];

describe('test-mode errors on demand (docs/api.md "Test mode")', () => {
  for (const [name, status, type, category] of ERRORS_ON_DEMAND) {
    test(`gw-test:${name} answers ${status} ${name} (${type}, ${category}) and is logged`, async () => {
      const res = await chat(gw, { model: `gw-test:${name}`, messages: user(`Fail with ${name}.`) });
      const retryAfter = res.headers.get("retry-after");
      const err = await expectError(res, status, name, { type, category });
      if (status === 429) {
        expect(retryAfter).not.toBeNull();
        expect(Number(retryAfter)).toBeGreaterThan(0);
      }

      const detail = await requestDetail(gw, err.request_id as string);
      expect(detail.request_id).toBe(err.request_id);
      expect(detail.status).toBe(status);
      expect((detail.error as Json).code).toBe(name);
      expect(detail.error_category).toBe(category);
      expect(detail.requested_model).toBe(`gw-test:${name}`);
      const root = spansOf(detail).find((s) => s.name === "request")!;
      expect(root.status).toBe("error");
      expect(root.error_code).toBe(name);
      const traceError = (detail.trace as { error: { primary: { code: string } } | null }).error;
      expect(traceError?.primary.code).toBe(name);
    });
  }

  test("errors on demand fail the same way when stream is true (before the stream starts)", async () => {
    for (const [name, status] of [["rate_limited", 429], ["budget_exceeded", 402], ["timeout", 504]] as const) {
      const res = await chat(gw, { model: `gw-test:${name}`, messages: user("stream?"), stream: true });
      expect(res.headers.get("content-type")).toContain("application/json");
      await expectError(res, status, name);
    }
  });

  test("the log lists each failure once, newest first, filterable by status", async () => {
    const res = await chat(gw, { model: "gw-test:plan_limit", messages: user("count me") });
    const id = res.headers.get("x-gw-request-id")!;
    await gw.drain();
    const list = await json(await fetch(`${gw.url}/requests?status=402`, { headers: { authorization: `Bearer ${gw.testKey}` } }));
    const rows = list.data as Json[];
    expect(rows[0]!.request_id).toBe(id);
    expect(rows.filter((r) => r.request_id === id)).toHaveLength(1);
    expect(rows.every((r) => r.status === 402)).toBe(true);
  });
});

describe('gw-test:fallback (docs/api.md "Test mode")', () => {
  test("the first provider fails, the second answers: gw.fallbacks 1, two attempts, two llm spans", async () => {
    const res = await chat(gw, { model: "gw-test:fallback", messages: user("Fall back, please.") });
    expect(res.status).toBe(200);
    const body = await json(res);
    const g = body.gw as Json;
    expect(g.fallbacks).toBe(1);
    expect(g.provider).toBe("sandbox");
    expect(g.test).toBe(true);
    expect(body.model).toBe(g.selected_model);
    expect(res.headers.get("x-gw-model")).toBe(g.selected_model as string);

    const detail = await requestDetail(gw, g.request_id as string);
    expect(detail.fallbacks).toBe(1);
    expect(detail.status).toBe(200);
    expect(detail.error).toBeNull();
    const attempts = attemptsOf(detail);
    expect(attempts).toHaveLength(2);
    expect(attempts[0]!.status).toBe("error");
    expect(attempts[0]!.error_code).not.toBeNull();
    expect(attempts[1]!.status).toBe("ok");
    expect(attempts[1]!.error_code).toBeNull();
    expect(attempts[1]!.model).toBe(g.selected_model as string);
    // Test mode answers through the sandbox; the simulated models belong to two different providers.
    const providerOf = (model: string) => model.split("/")[0];
    expect(providerOf(attempts[0]!.model)).not.toBe(providerOf(attempts[1]!.model));
    const llm = spansOf(detail).filter((s) => s.name === "llm");
    expect(llm).toHaveLength(2);
    expect(llm[0]!.status).toBe("error");
    expect(llm[1]!.status).toBe("ok");
    expect(llm.map((s) => s.attributes?.model)).toEqual(attempts.map((a) => a.model));
  });

  test("a streamed fallback reports fallbacks 1 in the gw.summary", async () => {
    const res = await chat(gw, { model: "gw-test:fallback", messages: user("Stream a fallback."), stream: true });
    expect(res.status).toBe(200);
    const frames = framesOf(await readSse(res));
    const summary = frames.at(-1)!;
    expect(summary.object).toBe("gw.summary");
    expect((summary.gw as Json).fallbacks).toBe(1);
    const detail = await requestDetail(gw, res.headers.get("x-gw-request-id")!);
    expect(attemptsOf(detail).map((a) => a.status)).toEqual(["error", "ok"]);
    expect(spansOf(detail).filter((s) => s.name === "llm")).toHaveLength(2);
  });
});

describe('gw-test:stream_error ends in the in-stream error (docs/api.md "Test mode", "Errors")', () => {
  test("some deltas, then one {error} data line with upstream_error, then [DONE], no gw.summary", async () => {
    const res = await chat(gw, { model: "gw-test:stream_error", messages: user("Break mid-stream."), stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const requestId = res.headers.get("x-gw-request-id")!;
    const frames = framesOf(await readSse(res));
    expect(frames.some((f) => f.object === "gw.summary")).toBe(false);

    const last = frames.at(-1)!;
    expect(Object.keys(last)).toEqual(["error"]);
    const err = last.error as Json;
    expect(err.code).toBe("upstream_error");
    expect(err.type).toBe("api_error");
    expect(err.category).toBe("UPSTREAM_ERROR");
    expect(err.request_id).toBe(requestId);
    expect(typeof err.message).toBe("string");
    expect(Object.keys(err).sort()).toEqual(["category", "code", "message", "param", "request_id", "type"]);

    const chunks = frames.slice(0, -1);
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.every((c) => c.object === "chat.completion.chunk")).toBe(true);
    const text = chunks
      .flatMap((c) => (c.choices as Array<{ delta: { content?: string | null } }>).map((ch) => ch.delta.content ?? ""))
      .join("");
    expect(text.length).toBeGreaterThan(0);
    expect(frames.filter((f) => "error" in f)).toHaveLength(1);
  });

  test("its log row keeps the 200 already sent, with the error code and category set", async () => {
    const res = await chat(gw, { model: "gw-test:stream_error", messages: user("Break and log."), stream: true });
    await res.text();
    const detail = await requestDetail(gw, res.headers.get("x-gw-request-id")!);
    expect(detail.status).toBe(200);
    expect((detail.error as Json).code).toBe("upstream_error");
    expect(detail.error_category).toBe("UPSTREAM_ERROR");
    expect(detail.stream).toBe(true);
    const llm = spansOf(detail).filter((s) => s.name === "llm");
    expect(llm).toHaveLength(1);
    expect(llm[0]!.error_code).toBe("upstream_error");
    expect(spansOf(detail).find((s) => s.name === "request")!.error_code).toBe("upstream_error");
    expect(detail.output_tokens as number).toBeGreaterThan(0);
  });
});

describe('unknown scenarios and live keys (docs/api.md "Test mode")', () => {
  test("an unknown gw-test name answers 404 model_not_found", async () => {
    for (const model of ["gw-test:nope", "gw-test:", "gw-test:RATE_LIMITED", "gw-test:constructor", "gw-test:__proto__", "gw-test:toString"]) {
      await expectError(await chat(gw, { model, messages: user("?") }), 404, "model_not_found", {
        type: "not_found_error", category: "MODEL_NOT_FOUND", param: "model",
      });
    }
  });

  test("on a live key every gw-test:* model answers 404 model_not_found", async () => {
    const live = gw.key({ mode: "live" });
    for (const name of ["rate_limited", "fallback", "stream_error", "timeout"]) {
      const res = await chat(gw, { model: `gw-test:${name}`, messages: user("live?") }, {}, live);
      const err = await expectError(res, 404, "model_not_found", { param: "model" });
      expect(res.headers.get("retry-after")).toBeNull();
      const detail = await requestDetail(gw, err.request_id as string);
      expect(detail.status).toBe(404);
      expect(detail.test).toBe(false);
    }
  });
});
