// Hostile upstreams that stall (docs/availability.md "Upstream calls and streams"): a body that
// stops after its headers, a stream that goes silent, a client that leaves. Each ends as specified
// with the upstream aborted, and GET /v1/models is answered while the hostile request still runs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type HostileUpstream, openAiFrames } from "../helpers/scripted-hostile.ts";
import { hostileUpstream, startGw } from "../helpers/start-gw.ts";
import { get, post, type TestGw } from "../helpers/test-gw.ts";
import { requestDetail, sseData } from "../helpers/flow-helpers.ts";
import type { RequestRecord } from "../../src/store/repos/requests.ts";

let up: HostileUpstream;
let gw: TestGw;
let key: string;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ gw, upstreams: { openai: up }, stop } = await startGw({
    upstreams: { openai: hostileUpstream("sk-hostile") },
    env: { GW_SEMANTIC_EMBEDDER: "off", GW_UPSTREAM_TIMEOUT_MS: "400", GW_STREAM_IDLE_TIMEOUT_MS: "400", GW_SSE_KEEPALIVE_MS: "600000" },
  }));
  key = gw.key({ mode: "live", scopes: ["chat", "models", "requests"] });
});
afterAll(() => stop());

const ask = (content: string, extra: Record<string, unknown> = {}, init: RequestInit = {}) =>
  fetch(`${gw.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "x-gw-cache": "off" },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }], ...extra }),
    ...init,
  });

/** GET /v1/models answers while the hostile request is under way (ordering: the upstream has it). */
async function modelsAnswered(): Promise<void> {
  const res = await get(`${gw.url}/models`, key);
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

describe("a stalled non-streamed body", () => {
  test("with a declared Content-Length too (Bun's own body read): 504 timeout, upstream aborted", async () => {
    up.script({ kind: "stall-body", head: '{"id":"chatcmpl-x",', declaredLength: 5000 });
    const aborted = up.aborted;
    const pending = ask("stall after the headers, length declared");
    await up.called();
    await modelsAnswered();
    const res = await pending;
    expect(res.status).toBe(504);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("timeout");
    await up.abortedAt(aborted + 1);
  });

  test("ends as 504 timeout in the envelope once the attempt's deadline passes, with the upstream aborted", async () => {
    up.script({ kind: "stall-body", head: '{"id":"chatcmpl-x","object":"chat.completion","choices":[' });
    const aborted = up.aborted;
    const pending = ask("stall after the headers");
    await up.called();
    await modelsAnswered();
    const res = await pending;
    expect(res.status).toBe(504);
    expect(res.headers.get("x-gw-api-version")).toBeTruthy();
    const body = (await res.json()) as { error: { code: string; category: string; request_id: string } };
    expect(body.error.code).toBe("timeout");
    expect(body.error.category).toBe("TIMEOUT");
    await up.abortedAt(aborted + 1);
    await gw.drain();
    const { body: row } = await requestDetail(gw.url, key, body.error.request_id);
    // A time-out moves on (no retry of the same model); one provider, so one attempt.
    expect(row.trace.attempts.map((a) => a.error_code)).toEqual(["timeout"]);
  });
});

describe("a stream that goes silent", () => {
  test("ends with the in-stream timeout error and [DONE], logged as an error, never cached", async () => {
    up.script({ kind: "silent-stream", frames: openAiFrames(["Hello", " there"]) });
    const aborted = up.aborted;
    const res = await fetch(`${gw.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "go silent" }], stream: true }),
    });
    expect(res.status).toBe(200);
    await up.called(0);
    await modelsAnswered();
    const data = await sseData(res);
    expect(data.at(-1)).toBe("[DONE]");
    const error = JSON.parse(data.at(-2)!) as { error: { code: string; request_id: string } };
    expect(error.error.code).toBe("timeout");
    expect(data.some((d) => d.includes('"Hello"'))).toBe(true);
    await up.abortedAt(aborted + 1);
    await gw.drain();
    const { body: row } = await requestDetail(gw.url, key, error.error.request_id);
    expect(row.error?.code).toBe("timeout");
    expect(row.error_category).toBe("TIMEOUT");
    // The cut answer was not stored: the same request goes to the upstream again.
    up.script({ kind: "whole", body: "not json at all" });
    const calls = up.paths.length;
    const again = await fetch(`${gw.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "go silent" }], stream: true }),
    });
    await again.text();
    expect(up.paths.length).toBeGreaterThan(calls);
  });
});

describe("a client that leaves", () => {
  test("a non-streamed request: the attempt is aborted, no retry starts, the row says 499 without an error", async () => {
    up.script({ kind: "hang" });
    const aborted = up.aborted;
    const calls = up.paths.length;
    // The row is recorded once the call stage ended: a retry would have started before it.
    const recorded = new Promise<RequestRecord>((resolve) => gw.deps.requestListeners.push((r) => r.status === 499 && resolve(r)));
    const client = new AbortController();
    const pending = ask("leave before the answer", {}, { signal: client.signal }).catch((e: unknown) => e);
    await up.called();
    client.abort();
    expect(await pending).toBeInstanceOf(Error);
    await up.abortedAt(aborted + 1);
    const row = await recorded;
    expect(row.errorCode).toBeNull();
    expect(row.errorCategory).toBeNull();
    const trace = row.trace as { client_disconnected?: boolean; attempts: unknown[] };
    expect(trace.client_disconnected).toBe(true);
    expect(trace.attempts).toHaveLength(1);
    expect(up.paths.length).toBe(calls + 1);
  });
});
