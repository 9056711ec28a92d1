// What retention `redacted` counts as sensitive, and which text of a body it reads
// (docs/retention.md "redacted"): analysis/sensitive.ts and pipeline/retention.ts, without a server.
import { describe, expect, test } from "bun:test";
import { sensitiveContent } from "../../../src/analysis/sensitive.ts";
import { bodyContentText, mayKeepResult, requestContentText, retentionOf } from "../../../src/pipeline/retention.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const chunk = (content: string) => `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", model: "m", choices: [{ index: 0, delta: { content } }] })}\n\n`;

describe("docs/retention.md: sensitive content", () => {
  test("personal data and secrets are found; ordinary text is clean", () => {
    expect(sensitiveContent("Write to grace@example.org today")).toBe("personal_data");
    expect(sensitiveContent("My card is 4111 1111 1111 1111")).toBe("personal_data");
    expect(sensitiveContent("My name is Ada and I live in London")).toBe("personal_data");
    expect(sensitiveContent("key: sk-ant-api03-abcdefghijklmnopqrstuv")).toBe("secret");
    expect(sensitiveContent("-----BEGIN RSA PRIVATE KEY-----\nMIIE")).toBe("secret");
    expect(sensitiveContent("password = hunter2hunter2")).toBe("secret");
    expect(sensitiveContent("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U")).toBe("secret");
    expect(sensitiveContent("Explain how photosynthesis works in two sentences.")).toBeNull();
    expect(sensitiveContent("The capital of France is Paris; it has 2,100,000 inhabitants.")).toBeNull();
    expect(sensitiveContent("")).toBeNull();
  });
});

describe("docs/retention.md: the text of a body", () => {
  test("metadata fields are skipped: a cost with many digits or an id is not content", () => {
    const body = JSON.stringify({
      id: "chatcmpl-0123456789012345", object: "chat.completion", created: 1712345678, model: "openai/gpt-4o-mini",
      choices: [{ index: 0, message: { role: "assistant", content: "Hello there." }, finish_reason: "stop" }],
      usage: { prompt_tokens: 12, completion_tokens: 3 }, gw: { request_id: "req_01", cost: 0.000015000000000000002, provider: "openai" },
    });
    expect(bodyContentText(bytes(body))).toBe("Hello there.");
    expect(mayKeepResult("redacted", { messages: [{ role: "user", content: "Say hello" }] }, bytes(body))).toBe(true);
  });

  test("a stream's pieces are joined per field, so an address split across chunks is found", () => {
    const sse = chunk("Mail ada.love") + chunk("lace@example.com please") + "data: [DONE]\n\n";
    expect(bodyContentText(bytes(sse))).toBe("Mail ada.lovelace@example.com please");
    expect(mayKeepResult("redacted", { messages: [{ role: "user", content: "Whom to mail?" }] }, bytes(sse))).toBe(false);
  });

  test("the request's text: messages, input and instructions", () => {
    expect(requestContentText({ model: "x", user: "u@example.com", messages: [{ role: "user", content: "hi" }] })).toBe("hi");
    expect(requestContentText({ input: "call +44 20 7946 0958", instructions: "be brief" })).toContain("+44");
    expect(mayKeepResult("redacted", { input: "call me on +44 20 7946 0958" }, bytes('{"data":[]}'))).toBe(false);
  });

  test("modes: unknown or unset is standard; minimal and zero never keep", () => {
    expect(retentionOf({})).toBe("standard");
    expect(retentionOf({ retention: "forever" })).toBe("standard");
    expect(retentionOf({ retention: "zero" })).toBe("zero");
    const clean = bytes('{"choices":[{"message":{"content":"ok"}}]}');
    expect(mayKeepResult("standard", {}, clean)).toBe(true);
    expect(mayKeepResult("minimal", {}, clean)).toBe(false);
    expect(mayKeepResult("zero", {}, clean)).toBe(false);
  });
});
