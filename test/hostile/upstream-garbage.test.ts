// Upstreams that send garbage, through each adapter (OpenAI-compatible, Anthropic, Gemini): a
// malformed chunk or body is upstream_error (502, or the in-stream error then [DONE]), never an
// internal error counted as gw's own failure (issue 14, docs/availability.md).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type HostileUpstream, openAiFrames, startHostileUpstream } from "../helpers/scripted-hostile.ts";
import { startTestGw, type TestGw } from "../helpers/test-gw.ts";
import { sseData } from "../helpers/flow-helpers.ts";

let up: HostileUpstream;
beforeAll(async () => {
  up = await startHostileUpstream();
});
afterAll(async () => {
  await up.stop();
});

/** A fresh gw per case: each failure counts against provider health, and a circuit opened by the
 * previous cases would answer 503 before the upstream is asked. */
async function ask(model: string, stream: boolean): Promise<Response> {
  const gw: TestGw = await startTestGw({
    OPENAI_API_KEY: "sk-hostile", OPENAI_BASE_URL: up.url, ANTHROPIC_API_KEY: "sk-ant", ANTHROPIC_BASE_URL: up.origin,
    GEMINI_API_KEY: "g-key", GEMINI_BASE_URL: up.origin, GW_SEMANTIC_EMBEDDER: "off",
  });
  try {
    const res = await fetch(`${gw.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${gw.key({ mode: "live", scopes: ["chat"] })}`, "x-gw-cache": "off" },
      body: JSON.stringify({ model, messages: [{ role: "user", content: "garbage please" }], stream }),
    });
    // Read whole before the gw stops.
    return new Response(await res.arrayBuffer(), { status: res.status, headers: res.headers });
  } finally {
    await gw.stop();
  }
}

const HEAD = '"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini"';
const sse = (...datas: string[]): string => datas.map((d) => `data: ${d}\n\n`).join("");

/** Seeded cases: each adapter's wire with one malformed piece. */
const STREAM_CASES: Array<{ name: string; model: string; body: string }> = [
  { name: "OpenAI: delta null", model: "openai/gpt-4o-mini", body: openAiFrames(["ok"]).join("") + sse(`{${HEAD},"choices":[{"index":0,"delta":null,"finish_reason":null}]}`, "[DONE]") },
  { name: "OpenAI: choices of numbers", model: "openai/gpt-4o-mini", body: sse(`{${HEAD},"choices":[1,2]}`, "[DONE]") },
  { name: "OpenAI: tool_calls not an array", model: "openai/gpt-4o-mini", body: sse(`{${HEAD},"choices":[{"index":0,"delta":{"tool_calls":"x"}}]}`, "[DONE]") },
  { name: "OpenAI: content an object", model: "openai/gpt-4o-mini", body: sse(`{${HEAD},"choices":[{"index":0,"delta":{"content":{"a":1}}}]}`, "[DONE]") },
  { name: "OpenAI: a line that is not JSON", model: "openai/gpt-4o-mini", body: sse("{not json", "[DONE]") },
  { name: "Anthropic: content_block_delta with a non-object delta, then no message_stop", model: "anthropic/claude-haiku-4-5", body:
    'event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"claude-haiku-4-5","usage":{"input_tokens":3}}}\n\n' +
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":7}\n\n' },
  { name: "Anthropic: an event that is not JSON", model: "anthropic/claude-haiku-4-5", body: "event: content_block_delta\ndata: {oops\n\n" },
  { name: "Gemini: parts a number", model: "google/gemini-2.5-flash", body: sse('{"candidates":[{"content":{"parts":5}}]}') },
  { name: "Gemini: an event that is not JSON", model: "google/gemini-2.5-flash", body: sse("[[[") },
];

const BODY_CASES: Array<{ name: string; model: string; body: string }> = [
  { name: "OpenAI: choices [null]", model: "openai/gpt-4o-mini", body: '{"choices":[null]}' },
  { name: "OpenAI: message a number", model: "openai/gpt-4o-mini", body: '{"choices":[{"index":0,"message":5}]}' },
  { name: "OpenAI: tool_calls without a function", model: "openai/gpt-4o-mini", body: '{"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"x"}]}}]}' },
  { name: "OpenAI: not JSON", model: "openai/gpt-4o-mini", body: "<html>oops</html>" },
  { name: "Anthropic: content not an array", model: "anthropic/claude-haiku-4-5", body: '{"type":"message","content":"text"}' },
  { name: "Gemini: parts a number", model: "google/gemini-2.5-flash", body: '{"candidates":[{"content":{"parts":5}}]}' },
  { name: "Gemini: an array", model: "google/gemini-2.5-flash", body: "[1,2,3]" },
];

describe("malformed stream chunks", () => {
  for (const c of STREAM_CASES) {
    test(`${c.name}: the in-stream upstream_error, then [DONE]`, async () => {
      up.script({ kind: "whole", body: c.body, contentType: "text/event-stream" });
      const res = await ask(c.model, true);
      expect(res.status).toBe(200);
      const data = await sseData(res);
      expect(data.at(-1)).toBe("[DONE]");
      const error = JSON.parse(data.at(-2)!) as { error: { code: string; category: string } };
      expect(error.error.code).toBe("upstream_error");
      expect(error.error.category).toBe("UPSTREAM_ERROR");
    });
  }
});

describe("malformed whole bodies", () => {
  for (const c of BODY_CASES) {
    test(`${c.name}: 502 upstream_error in the envelope`, async () => {
      up.script({ kind: "whole", body: c.body });
      const res = await ask(c.model, false);
      expect(res.status).toBe(502);
      expect(res.headers.get("x-gw-api-version")).toBeTruthy();
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("upstream_error");
    });
  }
});
