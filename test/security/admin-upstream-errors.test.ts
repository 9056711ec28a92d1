// Issue 15 item 8 (docs/security.md "Admin"): upstream error texts relayed to callers lose anything
// that looks like a credential; the useful rest of the explanation is kept.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseError as parseAnthropic } from "../../src/providers/anthropic/errors.ts";
import { parseError as parseOpenAi } from "../../src/providers/openai-compatible/errors.ts";
import { scrubCredentials } from "../../src/canonical/scrub-credentials.ts";
import { UpstreamFailure } from "../../src/canonical/failure.ts";
import type { ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../helpers/start-gw.ts";
import { post, type TestGw } from "../helpers/test-gw.ts";

const SECRETS = [
  "sk-proj-AbC123dEf456GhI789jKl012MnO345",
  "sk-ant-api03-Zyx987Wvu654Tsr321Qpo098",
  "AIzaSyD-1234567890abcdefghijklmnopqrs",
  "gw_live_0123456789abcdefghij0123456789abcdefghij",
  "AKIAIOSFODNN7EXAMPLE",
  "ghp_0123456789abcdefABCDEF0123456789abcd",
  "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
  "3f9a2b7c8d1e4f5a6b7c8d9e0f1a2b3c4d5e6f7a",
];

describe("scrubCredentials", () => {
  test("key shapes, Bearer values, named pairs and query strings are redacted", () => {
    for (const secret of SECRETS) {
      for (const text of [`Incorrect API key provided: ${secret}.`, `Authorization: Bearer ${secret}`, `{"api_key": "${secret}"}`, `GET https://x.example/v1?key=${secret}&a=1`]) {
        const out = scrubCredentials(text);
        expect({ text, leaked: out.includes(secret) }).toEqual({ text, leaked: false });
        expect(out).toContain("[redacted]");
      }
    }
    expect(scrubCredentials("x-api-key: hunter2hunter2")).not.toContain("hunter2");
    expect(scrubCredentials("password=opensesame")).not.toContain("opensesame");
  });
  test("ordinary explanations pass unchanged", () => {
    for (const text of [
      "max_tokens: 4096 is too large for claude-3-5-sonnet-20241022; messages.0.content must be a string",
      "The model `gpt-4o-mini-2024-07-18` does not exist or you do not have access to it.",
      "See https://platform.openai.com/docs/guides/error-codes/api-errors for details.",
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
    ]) expect(scrubCredentials(text)).toBe(text);
  });
});

describe("the providers' relayed explanations", () => {
  const echo = JSON.stringify({ error: { message: `Invalid key in header: Bearer ${SECRETS[0]}; also got ${SECRETS[1]}`, type: "invalid_request_error" } });
  test("OpenAI-compatible and Anthropic 400s keep their explanation without the keys", () => {
    for (const failure of [parseOpenAi(400, echo, new Headers(), "openai"), parseAnthropic(400, echo, new Headers(), "anthropic")]) {
      const error = failure.toGwError();
      expect(error.message).toContain("Invalid key in header");
      for (const s of SECRETS.slice(0, 2)) expect(error.message).not.toContain(s);
    }
  });
  test("gw's own message (a transport error with a URL) is scrubbed too", () => {
    const error = UpstreamFailure.network(`Could not reach the provider: fetch https://g.example/v1?key=${SECRETS[2]} failed`).toGwError();
    expect(error.message).not.toContain(SECRETS[2]);
  });
});

describe("through the server", () => {
  let upstream: ScriptedUpstream;
  let gw: TestGw;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ gw, upstreams: { openai: upstream }, stop } = await startGw({ upstreams: { openai: openaiUpstream({}, "sk-scrub") } }));
  });
  afterAll(() => stop());

  test("a provider 400 that echoes a project's key reaches the caller without it", async () => {
    const key = gw.key({ mode: "live", scopes: ["chat"] });
    upstream.script({ status: 400, body: { error: { message: `Unrecognized request argument; your key ${SECRETS[0]} is not allowed here`, type: "invalid_request_error" } } });
    const res = await post(`${gw.url}/chat/completions`, key, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).toContain("Unrecognized request argument");
    expect(text).not.toContain(SECRETS[0]);
    expect(text).toContain("[redacted]");
  });
});
