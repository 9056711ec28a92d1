// POST /responses on the wire: clear 400s for what gw does not serve, the error envelope before a
// stream starts, named SSE events without [DONE], cached tokens, and the request-log row.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../helpers/start-gw.ts";
import { post, type TestGw } from "../helpers/test-gw.ts";
import { requestDetail } from "../helpers/flow-helpers.ts";

let gw: TestGw;
let upstream: ScriptedUpstream;
let liveKey: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ gw, upstreams: { openai: upstream }, stop } = await startGw({ upstreams: { openai: openaiUpstream() } }));
  liveKey = gw.key({ mode: "live", scopes: ["chat", "requests"] });
});
afterAll(() => stop());

const responses = (body: unknown, key = gw.testKey) => post(`${gw.url}/responses`, key, body);

async function expectInvalid(body: unknown, param: string | null): Promise<string> {
  const res = await responses(body);
  expect(res.status).toBe(400);
  const { error } = (await res.json()) as { error: { code: string; param: string | null; message: string; request_id: string } };
  expect(error.code).toBe("invalid_request");
  expect(error.param).toBe(param);
  expect(error.request_id).toMatch(/^req_/);
  return error.message;
}

/** The SSE frames of a Responses stream as [event name, parsed data]. */
async function frames(res: Response): Promise<Array<[string, Record<string, unknown>]>> {
  const text = await res.text();
  expect(text).not.toContain("[DONE]");
  return text.trim().split("\n\n").map((frame) => {
    const [eventLine, dataLine] = frame.split("\n");
    expect(eventLine).toStartWith("event: ");
    expect(dataLine).toStartWith("data: ");
    return [eventLine!.slice(7), JSON.parse(dataLine!.slice(6)) as Record<string, unknown>];
  });
}

describe("bad input answers 400 naming the param", () => {
  test("missing, empty or mistyped input", async () => {
    await expectInvalid({ model: "gw-auto" }, "input");
    await expectInvalid({ input: [] }, "input");
    expect(await expectInvalid({ input: [{ role: "tool", content: "x" }] }, "input[0].role")).toContain("\"user\"");
    await expectInvalid({ input: [{ type: "function_call", name: "f", arguments: "{}" }] }, "input[0].call_id");
  });
  test("state kept by OpenAI that gw does not keep", async () => {
    expect(await expectInvalid({ input: "hi", previous_response_id: "resp_1" }, "previous_response_id")).toContain("whole conversation");
    await expectInvalid({ input: "hi", conversation: "conv_1" }, "conversation");
  });
  test("hosted tools and unknown item types", async () => {
    expect(await expectInvalid({ input: "hi", tools: [{ type: "web_search" }] }, "tools[0].type")).toContain("function tools");
    await expectInvalid({ input: [{ type: "item_reference", id: "msg_1" }] }, "input[0].type");
  });
  test("images by file id, images outside user messages, tool_choice naming an unknown function", async () => {
    await expectInvalid({ input: [{ role: "user", content: [{ type: "input_image", file_id: "file-1" }] }] }, "input[0].content[0].image_url");
    await expectInvalid({ input: [{ role: "assistant", content: [{ type: "input_image", image_url: "https://x/y.png" }] }] }, "input[0].content");
    await expectInvalid({ input: "hi", tools: [{ type: "function", name: "a" }], tool_choice: { type: "function", name: "b" } }, "tool_choice");
  });
  test("extension fields are checked as on chat completions", async () => {
    await expectInvalid({ input: "hi", routing: { mode: "cheap" } }, "routing.mode");
    await expectInvalid({ input: "hi", tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, "tags");
  });
});

describe("errors before the stream starts use the envelope", () => {
  test("unknown model: 404 model_not_found, also with stream: true", async () => {
    for (const stream of [false, true]) {
      const res = await responses({ model: "nope/none", input: "hi", stream });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("model_not_found");
    }
  });
  test("a key without the chat scope: 403", async () => {
    const res = await responses({ input: "hi" }, gw.key({ scopes: ["models"] }));
    expect(res.status).toBe(403);
  });
  test("test-mode rate limit: 429 with Retry-After", async () => {
    const res = await responses({ model: "gw-test:rate_limited", input: "hi" });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).not.toBeNull();
  });
});

describe("the stream on the wire", () => {
  test("every frame is an event: line naming data.type, then a data: line; no [DONE]", async () => {
    const res = await responses({ input: "Say something short.", stream: true });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("x-gw-request-id")).toMatch(/^req_/);
    const all = await frames(res);
    for (const [name, data] of all) expect(data.type).toBe(name);
    expect(all[0]![0]).toBe("response.created");
    expect(all.at(-1)![0]).toBe("response.completed");
  });
  test("the error event carries type error and the gw error object", async () => {
    const all = await frames(await responses({ model: "gw-test:stream_error", input: "hello there", stream: true }));
    const [name, data] = all.at(-1)!;
    expect(name).toBe("error");
    expect(data).toMatchObject({ type: "error", code: "upstream_error", error: { code: "upstream_error", type: "api_error" } });
  });
});

describe("usage and the log", () => {
  test("cached prompt tokens appear as input_tokens_details.cached_tokens", async () => {
    upstream.script({
      body: {
        id: "chatcmpl-c", object: "chat.completion", created: 1, model: "gpt-4o-mini",
        choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 2000, completion_tokens: 2, total_tokens: 2002, prompt_tokens_details: { cached_tokens: 1536 } },
      },
    });
    const res = await responses({ model: "openai/gpt-4o-mini", input: "hi" }, liveKey);
    const body = (await res.json()) as { usage: Record<string, unknown> };
    expect(body.usage).toMatchObject({ input_tokens: 2000, output_tokens: 2, total_tokens: 2002, input_tokens_details: { cached_tokens: 1536 } });
  });

  test("the request log names the endpoint, and neither row nor trace holds the prompt or answer", async () => {
    const secret = "Zanzibar-prompt-7731";
    const res = await responses({ model: "openai/gpt-4o-mini", input: `Repeat ${secret}`, instructions: "Echo." }, liveKey);
    const id = res.headers.get("x-gw-request-id")!;
    const answer = ((await res.json()) as { output_text: string }).output_text;
    await gw.drain();
    const { status, body } = await requestDetail(gw.url, liveKey, id);
    expect(status).toBe(200);
    expect((body as unknown as { endpoint: string }).endpoint).toBe("responses");
    expect(body.selected_model).toBe("openai/gpt-4o-mini");
    expect(body.input_tokens).toBeGreaterThan(0);
    const text = JSON.stringify(body);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(answer);
  });
});
