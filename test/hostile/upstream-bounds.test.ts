// Upstreams that send too much (docs/availability.md "Upstream calls and streams"): a huge or
// endless body, an endless stream, an endless SSE line, endless empty chunks. Each is aborted,
// answered upstream_error (502 or the in-stream error), billed only for what fits, never cached;
// GET /v1/models is answered while the hostile request runs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type HostileUpstream, openAiCompletion, openAiFrames } from "../helpers/scripted-hostile.ts";
import { hostileUpstream, startGw } from "../helpers/start-gw.ts";
import { get, type TestGw } from "../helpers/test-gw.ts";
import { requestDetail, sseData } from "../helpers/flow-helpers.ts";

let up: HostileUpstream;
let gw: TestGw;
let key: string;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ gw, upstreams: { openai: up }, stop } = await startGw({ upstreams: { openai: hostileUpstream("sk-hostile") }, env: { GW_SEMANTIC_EMBEDDER: "off" } }));
  key = gw.key({ mode: "live", scopes: ["chat", "models", "requests"] });
});
afterAll(() => stop());

/** max_tokens 10: 160 + 1 MiB characters of text, 40 KiB + 4 MiB of wire bytes. */
const ask = (content: string, stream: boolean) =>
  fetch(`${gw.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }], max_tokens: 10, stream }),
  });

async function modelsAnswered(): Promise<void> {
  const res = await get(`${gw.url}/models`, key);
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

async function expect502(res: Response): Promise<string> {
  expect(res.status).toBe(502);
  expect(res.headers.get("x-gw-api-version")).toBeTruthy();
  const body = (await res.json()) as { error: { code: string; request_id: string } };
  expect(body.error.code).toBe("upstream_error");
  return body.error.request_id;
}

describe("non-streamed bodies", () => {
  test("an endless body is aborted at its bound: 502 upstream_error, the upstream aborted", async () => {
    up.script({ kind: "endless-body", head: '{"choices":[{"index":0,"message":{"role":"assistant","content":"', piece: "x" });
    const aborted = up.aborted;
    const pending = ask("endless body", false);
    await up.called();
    await modelsAnswered();
    const id = await expect502(await pending);
    await up.abortedAt(aborted + 1);
    await gw.drain();
    const { body: row } = await requestDetail(gw.url, key, id);
    // Oversize moves on to the explicit model's fallbacks without retrying the same model.
    const models = row.trace.attempts.map((a) => a.model);
    expect(models.length).toBeGreaterThan(0);
    expect(new Set(models).size).toBe(models.length);
    expect(row.trace.attempts.every((a) => a.error_code === "upstream_error")).toBe(true);
  });

  test("an answer longer than max_tokens allows is refused and not cached: the next identical request calls again", async () => {
    up.script({ kind: "whole", body: openAiCompletion("y ".repeat(600_000)) });
    await expect502(await ask("too long an answer", false));
    const calls = up.paths.length;
    await expect502(await ask("too long an answer", false));
    expect(up.paths.length).toBeGreaterThan(calls);
  });
});

describe("streams", () => {
  test("an endless stream ends with the in-stream upstream_error and [DONE]; usage stays bounded", async () => {
    up.script({ kind: "endless-stream", head: openAiFrames([])[0], frame: openAiFrames(["word "])[1]! });
    const aborted = up.aborted;
    const res = await ask("endless stream", true);
    expect(res.status).toBe(200);
    await modelsAnswered();
    const data = await sseData(res);
    expect(data.at(-1)).toBe("[DONE]");
    const error = JSON.parse(data.at(-2)!) as { error: { code: string; request_id: string } };
    expect(error.error.code).toBe("upstream_error");
    await up.abortedAt(aborted + 1);
    await gw.drain();
    const { body: row } = await requestDetail(gw.url, key, error.error.request_id);
    expect(row.error?.code).toBe("upstream_error");
    // What was kept is bounded by the text limit (~1 MiB of "word "), not by the upstream.
    expect(row.output_tokens).toBeGreaterThan(0);
    expect(row.output_tokens).toBeLessThan(600_000);
  });

  test("an endless SSE line ends with upstream_error", async () => {
    up.script({ kind: "endless-stream", head: "data: ", frame: "z" });
    const aborted = up.aborted;
    const data = await sseData(await ask("endless line", true));
    expect(data.at(-1)).toBe("[DONE]");
    expect((JSON.parse(data.at(-2)!) as { error: { code: string } }).error.code).toBe("upstream_error");
    await up.abortedAt(aborted + 1);
  });

  test("endless chunks without text end at the wire bound with upstream_error", async () => {
    const empty = 'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":null}]}\n\n';
    up.script({ kind: "endless-stream", frame: empty });
    const aborted = up.aborted;
    const data = await sseData(await ask("endless empty chunks", true));
    expect(data.at(-1)).toBe("[DONE]");
    expect((JSON.parse(data.at(-2)!) as { error: { code: string } }).error.code).toBe("upstream_error");
    await up.abortedAt(aborted + 1);
  });
});
