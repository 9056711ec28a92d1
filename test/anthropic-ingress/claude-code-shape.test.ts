// A request shaped like Claude Code's (issue 20 item 7): `?beta=true`, anthropic-beta, system blocks
// with cache_control, several text blocks in a turn, thinking blocks and config, a tool loop, and
// fields gw ignores; streamed before a scripted Anthropic upstream and an OpenAI-format one. Then
// malformed bodies: each is a 4xx in Anthropic's envelope, never a 500.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ScriptedAnthropic } from "../helpers/scripted-anthropic.ts";
import type { ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { anthropicUpstream, openaiUpstream, startGw } from "../helpers/start-gw.ts";
import type { TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
let anthropicUp: ScriptedAnthropic;
let openaiUp: ScriptedUpstream;
let key: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ gw, upstreams: { anthropic: anthropicUp, openai: openaiUp }, stop } = await startGw({
    upstreams: { anthropic: anthropicUpstream(), openai: openaiUpstream() },
  }));
  key = gw.key({ mode: "live", scopes: ["chat"] });
});
afterAll(() => stop());

const claudeCodeBody = (model: string) => ({
  model,
  max_tokens: 32_000,
  stream: true,
  temperature: 1,
  thinking: { type: "enabled", budget_tokens: 4_000 },
  context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
  metadata: { user_id: "user_0123abcd_account__session_5678" },
  system: [
    { type: "text", text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { type: "ephemeral" } },
    { type: "text", text: "Working directory: /repo", cache_control: { type: "ephemeral" } },
  ],
  tools: [{
    name: "Read", description: "Reads a file.",
    input_schema: { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { file_path: { type: "string" } }, required: ["file_path"], additionalProperties: false },
  }, {
    name: "mcp__github__create_issue", description: "Opens an issue.",
    input_schema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
  }],
  messages: [
    { role: "user", content: [{ type: "text", text: "<system-reminder>Be careful.</system-reminder>" }, { type: "text", text: "Fix the bug in main.ts", cache_control: { type: "ephemeral" } }] },
    { role: "assistant", content: [
      { type: "thinking", thinking: "I should read the file.", signature: "sig-abc" },
      { type: "text", text: "Let me read it." },
      { type: "tool_use", id: "toolu_01", name: "Read", input: { file_path: "/repo/main.ts" } },
    ] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01", content: [{ type: "text", text: "const x = 1;" }] }] },
  ],
});

async function send(body: unknown, path = "/messages?beta=true"): Promise<Response> {
  return fetch(`${gw.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "anthropic-version": "2023-06-01", "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14" },
    body: JSON.stringify(body),
  });
}

const eventNames = (text: string) => [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);

describe("a Claude Code-shaped request", () => {
  test("before an Anthropic upstream: streamed in Anthropic's sequence; blocks, tools and the tool loop arrive, thinking does not", async () => {
    anthropicUp.reset();
    anthropicUp.script({ text: "Fixed." });
    const res = await send(claudeCodeBody("anthropic/claude-sonnet-4-5"));
    expect(res.status).toBe(200);
    const names = eventNames(await res.text());
    expect(names.slice(0, 2)).toEqual(["message_start", "ping"]);
    expect(names.slice(-3)).toEqual(["message_delta", "message_stop", "gw.summary"]);
    const sent = anthropicUp.calls.at(-1)!.body as Record<string, unknown> & { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> };
    expect((sent.system as Array<{ text: string }>).map((b) => b.text)).toEqual(["You are Claude Code, Anthropic's official CLI for Claude.", "Working directory: /repo"]);
    expect(sent.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(sent.messages[0]!.content.map((b) => b.text)).toEqual(["<system-reminder>Be careful.</system-reminder>", "Fix the bug in main.ts"]);
    expect(sent.messages[1]!.content.map((b) => b.type)).toEqual(["text", "tool_use"]);
    expect(sent.messages[2]!.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_01", content: "const x = 1;" });
    expect((sent.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(["Read", "mcp__github__create_issue"]);
    for (const field of ["thinking", "context_management", "metadata"]) expect(sent[field]).toBeUndefined();
  });

  test("before an OpenAI-format upstream: the same request as chat, no Anthropic-only field sent", async () => {
    openaiUp.reset();
    const res = await send({ ...claudeCodeBody("openai/gpt-4o-mini"), max_tokens: 4_000 });
    expect(res.status).toBe(200);
    expect(eventNames(await res.text()).at(-1)).toBe("gw.summary");
    const sent = openaiUp.calls.at(-1)!.body as Record<string, unknown>;
    for (const field of ["thinking", "context_management", "metadata", "system", "top_k"]) expect(sent[field]).toBeUndefined();
    expect(sent.user).toBe("user_0123abcd_account__session_5678");
    expect((sent.messages as Array<{ role: string }>).map((m) => m.role)).toEqual(["system", "system", "user", "assistant", "tool"]);
  });
});

describe("Claude Code's max_tokens", () => {
  test("32,000 before gpt-4o-mini (16,384 at most): capped upstream, answered 200, not refused", async () => {
    openaiUp.reset();
    const res = await send(claudeCodeBody("openai/gpt-4o-mini"));
    expect(res.status).toBe(200);
    await res.text();
    expect((openaiUp.calls.at(-1)!.body as { max_tokens?: number }).max_tokens).toBe(16_384);
  });
});

describe("malformed bodies", () => {
  const base = { model: "gw-auto", max_tokens: 16, messages: [{ role: "user", content: "hi" }] };
  const cases: Array<[string, unknown]> = [
    ["an array body", [base]],
    ["a string body", "hello"],
    ["no messages", { model: "gw-auto", max_tokens: 16 }],
    ["empty messages", { ...base, messages: [] }],
    ["a bad role", { ...base, messages: [{ role: "system", content: "x" }] }],
    ["content a number", { ...base, messages: [{ role: "user", content: 7 }] }],
    ["a block that is not an object", { ...base, messages: [{ role: "user", content: [7] }] }],
    ["a text block without text", { ...base, messages: [{ role: "user", content: [{ type: "text" }] }] }],
    ["an image from the Files API", { ...base, messages: [{ role: "user", content: [{ type: "image", source: { type: "file", file_id: "file_1" } }] }] }],
    ["a tool_use in a user turn", { ...base, messages: [{ role: "user", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] }] }],
    ["an image in an assistant turn", { ...base, messages: [{ role: "assistant", content: [{ type: "image", source: { type: "url", url: "https://x/y.png" } }] }] }],
    ["max_tokens 0", { ...base, max_tokens: 0 }],
    ["max_tokens a string", { ...base, max_tokens: "16" }],
    ["temperature 1.5", { ...base, temperature: 1.5 }],
    ["five stop sequences", { ...base, stop_sequences: ["a", "b", "c", "d", "e"] }],
    ["a tool without input_schema", { ...base, tools: [{ name: "f" }] }],
    ["a bad tool name", { ...base, tools: [{ name: "has space", input_schema: { type: "object" } }] }],
    ["tool_choice naming an unknown tool", { ...base, tools: [{ name: "f", input_schema: { type: "object" } }], tool_choice: { type: "tool", name: "g" } }],
    ["tool_choice of an unknown type", { ...base, tool_choice: { type: "sometimes" } }],
    ["system blocks that are not text", { ...base, system: [{ type: "image", source: { type: "url", url: "https://x/y.png" } }] }],
    ["metadata with a number", { ...base, metadata: { user_id: 5 } }],
    ["a bad gw extension field", { ...base, tags: "not-a-list" }],
  ];
  for (const [name, body] of cases) {
    test(`${name}: 400 invalid_request_error`, async () => {
      const res = await send(body, "/messages");
      expect(res.status).toBe(400);
      const answer = (await res.json()) as { type: string; error: { type: string; message: string } };
      expect(answer.type).toBe("error");
      expect(answer.error.type).toBe("invalid_request_error");
      expect(answer.error.message.length).toBeGreaterThan(0);
    });
  }
});
