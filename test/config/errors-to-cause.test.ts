// Errors that lead to the cause (issue 20 item 9; docs/config.md "Errors that lead to the cause"):
// an upstream's own error text reaches trace.error and the request log (never a caller fault's,
// which may quote the prompt); an open circuit names the provider and its last failure; "provider
// X not enabled" names the variable; start-up warns when no provider is configured.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createProject } from "../../src/admin/projects.ts";
import { issueKey } from "../../src/auth/api-keys.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps, closeStorage } from "../../src/deps.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { startServer } from "../../src/server.ts";
import { errorJson } from "../helpers/scripted-upstream-bodies.ts";
import type { ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../helpers/start-gw.ts";
import { post, startTestGw, type TestGw } from "../helpers/test-gw.ts";
import { requestDetail } from "../helpers/flow-helpers.ts";

const user = [{ role: "user", content: "a question about the sea" }];
type ErrorBody = { error: { code: string; message: string } };

describe("an upstream's own error text", () => {
  let gw: TestGw;
  let upstream: ScriptedUpstream;
  let stop: () => Promise<void>;
  let key: string;
  beforeAll(async () => {
    ({ gw, upstreams: { openai: upstream }, stop } = await startGw({ upstreams: { openai: openaiUpstream() } }));
    key = gw.key({ mode: "live", scopes: ["chat", "requests"] });
  });
  afterAll(() => stop());

  async function failed(status: number, message: string): Promise<{ answer: ErrorBody; logged: string; traced: unknown }> {
    upstream.script({ status, body: JSON.parse(errorJson(message, "server_error", null, null)) }, 2);
    const res = await post(`${gw.url}/chat/completions`, key, { model: "openai/gpt-4o-mini", messages: user });
    const answer = (await res.json()) as ErrorBody;
    await gw.drain();
    const { body } = await requestDetail(gw.url, key, res.headers.get("x-gw-request-id")!);
    upstream.reset();
    return { answer, logged: body.error!.message, traced: body.trace.error };
  }

  test("a 5xx's text is in the request log and trace.error, scrubbed and bounded, not in the answer", async () => {
    const text = `Backend pool exhausted in region us-east; key sk-live-abcdefghijklmnop was fine. ${"x".repeat(400)}`;
    const { answer, logged, traced } = await failed(500, text);
    expect(answer.error.message).toBe("openai failed (HTTP 500).");
    expect(logged).toStartWith('openai failed (HTTP 500). Upstream said: "Backend pool exhausted in region us-east; key [redacted] was fine. xxx');
    expect(logged).toEndWith('x…"');
    expect(logged.length).toBeLessThan(400);
    expect(traced).toMatchObject({ primary: { code: "upstream_error", message: logged } });
  });

  test("a caller fault's text (which may quote the prompt) stays out of the log", async () => {
    const { answer, logged } = await failed(400, "Invalid content: 'a question about the sea' is not allowed");
    expect(answer.error.message).toContain("a question about the sea");
    expect(logged).toBe("openai rejected the request (HTTP 400).");
  });
});

describe("an open circuit names the provider and its last failure", () => {
  test("a mistyped provider key: the 503 after the circuit opens says openai rejected gw's credentials", async () => {
    const { gw, upstreams: { openai: upstream }, stop } = await startGw({ upstreams: { openai: openaiUpstream() } });
    try {
      const key = gw.key({ mode: "live" });
      upstream.script({ status: 401, body: JSON.parse(errorJson("Incorrect API key provided: sk-wrong-0123456789abcd.", "invalid_request_error", null, "invalid_api_key")) }, 100);
      let last: ErrorBody | null = null;
      for (let i = 0; i < 10 && last?.error.code !== "provider_unavailable"; i++) {
        last = (await (await post(`${gw.url}/chat/completions`, key, { model: "openai/gpt-4o-mini", messages: user })).json()) as ErrorBody;
      }
      expect(last?.error).toEqual({
        ...last!.error,
        code: "provider_unavailable",
        message: "Every provider that could serve this request is failing right now (openai: circuit open, last failure: openai rejected gw's credentials (HTTP 401)); retry shortly.",
      });
    } finally {
      await stop();
    }
  });
});

describe("a provider that is not enabled", () => {
  let gw: TestGw;
  let key: string;
  beforeAll(async () => {
    gw = await startTestGw();
    key = gw.key({ mode: "live" });
  });
  afterAll(() => gw.stop());

  test.each([
    ["/chat/completions", { model: "openai/gpt-4o", messages: user }, "The model 'openai/gpt-4o' cannot serve this request: provider openai not enabled; set OPENAI_API_KEY to enable it."],
    ["/chat/completions", { model: "google/gemini-2.5-flash", messages: user }, "The model 'google/gemini-2.5-flash' cannot serve this request: provider google not enabled; set GEMINI_API_KEY to enable it."],
    ["/embeddings", { model: "text-embedding-3-small", input: "hi" }, "The model 'openai/text-embedding-3-small' cannot serve this request: provider openai not enabled; set OPENAI_API_KEY to enable it."],
  ])("%s %p names the variable", async (path, body, message) => {
    const res = await post(`${gw.url}${path}`, key, body);
    expect(res.status).toBe(503);
    expect(((await res.json()) as ErrorBody).error.message).toBe(message);
  });

  test("a profile with no provider at all says none is enabled", async () => {
    const res = await post(`${gw.url}/chat/completions`, key, { model: "gw-auto", messages: user });
    expect(((await res.json()) as ErrorBody).error.message).toEndWith(" No provider is enabled: set one's API key, e.g. OPENAI_API_KEY (docs/providers.md).");
  });
});

describe("start-up", () => {
  async function warnings(env: Record<string, string>): Promise<string[]> {
    const dir = mkdtempSync(join(tmpdir(), "gw-warn-"));
    const lines: string[] = [];
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
    const deps = buildDeps(loadConfig({ port: "0", data: dir }, { GW_SEMANTIC_EMBEDDER: "off", GW_STORAGE_RESERVE_MB: "1", ...env }), { logger: createLogger("warn", sink) });
    await closeStorage(deps);
    rmSync(dir, { recursive: true, force: true });
    return lines.map((l) => (JSON.parse(l) as { msg: string }).msg).filter((m) => m.startsWith("no provider is configured"));
  }

  test("warns once when no provider is configured, and not when one is", async () => {
    const none = await warnings({});
    expect(none.length).toBe(1);
    expect(none[0]).toContain("set OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY");
    expect(await warnings({ OPENAI_API_KEY: "sk-x" })).toEqual([]);
    expect(await warnings({ OLLAMA_BASE_URL: "http://127.0.0.1:11434/v1" })).toEqual([]);
  });
});

test("start-up warns about variables a typo away from gw's", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gw-typo-"));
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
  const deps = buildDeps(loadConfig({ port: "0", data: dir }, { GW_SEMANTIC_EMBEDDER: "off", GW_STORAGE_RESERVE_MB: "1", GW_SHUTDOWN_TIMEOUT: "5" }), { logger: createLogger("warn", sink) });
  await closeStorage(deps);
  rmSync(dir, { recursive: true, force: true });
  const warned = lines.map((l) => JSON.parse(l) as { msg: string; variables?: string[] }).filter((l) => l.variables);
  expect(warned).toMatchObject([{ variables: ["GW_SHUTDOWN_TIMEOUT (did you mean GW_SHUTDOWN_TIMEOUT_S?)"] }]);
});

test("the request's log line carries the same message as the request log, the upstream's words included", async () => {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(...String(chunk).split("\n").filter(Boolean)); done(); } });
  const upstream = await openaiUpstream().start();
  const dir = mkdtempSync(join(tmpdir(), "gw-line-"));
  const config = loadConfig({ port: "0", data: dir }, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: upstream.url, GW_SEMANTIC_EMBEDDER: "off", GW_STORAGE_RESERVE_MB: "1" });
  const deps = buildDeps(config, { logger: createLogger("info", sink) });
  const key = issueKey(deps.repos.apiKeys, { projectId: createProject(deps.repos.projects, { name: "p" }).id, mode: "live" }).secret;
  const server = startServer(config, { deps, quiet: true });
  try {
    upstream.script({ status: 500, body: JSON.parse(errorJson("Shard 7 is down", "server_error", null, null)) }, 2);
    const res = await post(`${server.url}/chat/completions`, key, { model: "openai/gpt-4o-mini", messages: user });
    expect(res.status).toBe(502);
    const line = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.request_id === res.headers.get("x-gw-request-id"));
    expect(line).toMatchObject({ msg: "request", error_code: "upstream_error", error_message: 'openai failed (HTTP 500). Upstream said: "Shard 7 is down"' });
    expect(JSON.stringify(lines)).not.toContain("a question about the sea");
  } finally {
    await server.stop();
    await upstream.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
