// The guard blocking through the real server (issue 9 item 6; docs/api.md "Errors"
// blocked_by_policy; docs/guard.md "Block"): 400 naming the kind, nothing sent upstream, and the value in
// none of the error, the log row or the trace.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { post } from "../../helpers/test-gw.ts";
import { SAMPLES } from "../../guard/samples.ts";
import { NOUN } from "../../../src/guard/kinds.ts";
import { requestDetail } from "../../helpers/flow-helpers.ts";
import { type GuardGw, startGuardGw } from "./guard-helpers.ts";

let g: GuardGw;
let blockAll: string;
beforeAll(async () => {
  g = await startGuardGw();
  blockAll = (await g.keyFor({ pii: "block", secrets: "block" })).key;
});
afterEach(() => g.upstream.reset());
afterAll(() => g.stop());

const chat = (key: string, content: string, extra: Record<string, unknown> = {}) =>
  post(`${g.gw.url}/chat/completions`, key, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content }], ...extra });

interface ErrorBody {
  error: { code: string; type: string; category: string; message: string; param: string | null };
}

describe("block: 400 blocked_by_policy naming the kind, for every kind", () => {
  for (const s of SAMPLES) {
    test(s.name, async () => {
      const res = await chat(blockAll, s.text);
      expect(res.status).toBe(400);
      const text = await res.text();
      const { error } = JSON.parse(text) as ErrorBody;
      expect(error).toMatchObject({ code: "blocked_by_policy", type: "invalid_request_error", category: "POLICY_BLOCKED" });
      expect(error.message).toContain(NOUN[s.kind]);
      expect(text).not.toContain(s.value);
      expect(g.upstream.callCount()).toBe(0);
    });
  }
});

describe("the log row and the trace", () => {
  test("hold the error code and message, never the value", async () => {
    const { key } = await g.keyFor({ pii: "block" });
    const value = "ada.lovelace@example.com";
    const res = await chat(key, `Forward this to ${value}`);
    expect(res.status).toBe(400);
    const id = res.headers.get("x-gw-request-id")!;
    await g.gw.drain();
    const { status, body } = await requestDetail(g.gw.url, key, id);
    expect(status).toBe(200);
    expect(body.status).toBe(400);
    expect(body.error?.code).toBe("blocked_by_policy");
    expect(body.error?.message).toContain("an e-mail address");
    expect(body.error_category).toBe("POLICY_BLOCKED");
    expect(body.trace.spans.find((s) => s.name === "guard")?.error_code).toBe("blocked_by_policy");
    // trace.guard: what was found and done, as counts.
    expect((body.trace as unknown as { guard: unknown }).guard).toMatchObject({ pii: "block", action: "blocked", found: { email: 1 } });
    expect(JSON.stringify(body)).not.toContain(value);
    expect(JSON.stringify(body)).not.toContain("example.com");
  });
});

describe("each category acts on its own", () => {
  test("pii block, secrets redact: a secret alone passes redacted; with an e-mail it is blocked", async () => {
    const { key } = await g.keyFor({ pii: "block" });
    expect((await chat(key, "key AKIAIOSFODNN7EXAMPLE")).status).toBe(200);
    expect(JSON.stringify(g.upstream.calls[0]!.body)).toContain("key [SECRET_1]");
    const res = await chat(key, "key AKIAIOSFODNN7EXAMPLE, mail ada@example.com");
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as ErrorBody;
    expect(error.message).toContain("an e-mail address");
    expect(error.message).not.toContain("secret");
    expect(g.upstream.callCount()).toBe(1);
  });

  test("secrets block, pii allow: personal data passes untouched", async () => {
    const { key } = await g.keyFor({ secrets: "block" });
    expect((await chat(key, "mail ada@example.com")).status).toBe(200);
    expect(JSON.stringify(g.upstream.calls[0]!.body)).toContain("mail ada@example.com");
    const res = await chat(key, "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----");
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error.message).toContain("a private key");
  });

  test("a blocked stream request answers 400 before any stream starts", async () => {
    const res = await chat(blockAll, "card 4111 1111 1111 1111", { stream: true });
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error.code).toBe("blocked_by_policy");
  });

  test("/responses is blocked the same way", async () => {
    const res = await post(`${g.gw.url}/responses`, blockAll, { model: "openai/gpt-4o-mini", input: "IBAN GB82WEST12345698765432" });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(JSON.parse(text).error.message).toContain("an IBAN");
    expect(text).not.toContain("GB82WEST12345698765432");
  });
});
