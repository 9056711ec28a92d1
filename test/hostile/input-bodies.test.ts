// Hostile request bodies through the real server (issue 14 items 1, 3, 6; docs/api.md "Limits";
// docs/availability.md "Request input"): oversized, chunked, deep, label-stuffed and tokenizer-
// hostile bodies each get their answer in the error envelope (docs/api.md "Errors") with X-Gw-Api-Version.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { API_VERSION, LIMITS } from "../../src/config/constants.ts";
import { GwError } from "../../src/errors/gw-error.ts";
import { readBodyText } from "../../src/schema/validate.ts";
import { ADMIN_TOKEN, startTestGw, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw();
});
afterAll(() => gw.stop());

const MIB = 1024 * 1024;
const hello = [{ role: "user", content: "hello" }];

function send(path: string, body: RequestInit["body"], headers: Record<string, string> = {}, method = "POST"): Promise<Response> {
  const auth = path.startsWith("/admin") ? ADMIN_TOKEN : gw.testKey;
  return fetch(gw.url + path, { method, headers: { authorization: `Bearer ${auth}`, "content-type": "application/json", ...headers }, body, duplex: "half" } as RequestInit);
}

/** The error envelope of docs/api.md "Errors" with the version header; returns the error object. */
async function envelope(res: Response, status: number): Promise<Record<string, unknown>> {
  expect(res.headers.get("x-gw-api-version")).toBe(API_VERSION);
  const body = (await res.json()) as { error: Record<string, unknown> };
  expect({ status: res.status, code: body.error.code }).toEqual({ status, code: "invalid_request" });
  return body.error;
}

/** A chunked body (no Content-Length) of `mib` MiB, made on demand. */
function chunked(mib: number, onChunk: (i: number) => void = () => {}): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(MIB).fill(97);
  let i = 0;
  return new ReadableStream({
    pull(c) {
      onChunk(i);
      if (i++ < mib) c.enqueue(chunk);
      else c.close();
    },
  });
}

describe('a body over 10 MiB answers 413 in the envelope, on every route (docs/api.md "Limits")', () => {
  const routes = ["/chat/completions", "/responses", "/embeddings", "/cache/invalidate", "/admin/projects", "/requests/req_x/feedback"];
  for (const path of routes) {
    test(`${path}: a declared 40 MiB (over Bun's old 32 MiB cap) is refused unread`, async () => {
      const error = await envelope(await send(path, new Uint8Array(40 * MIB)), 413);
      expect(error.message).toContain(String(LIMITS.bodyBytes));
    });
  }
  test("a chunked 64 MiB body is cut at the limit: 413 in the envelope, never Bun's own", async () => {
    let sent = 0;
    const res = await send("/chat/completions", chunked(64, (i) => (sent = i)));
    await envelope(res, 413);
    // Refused at the limit, not after the whole body: the stream stopped being pulled early.
    expect(sent).toBeLessThan(64);
  });
  test("a chunked body within the limit is read whole", async () => {
    const text = JSON.stringify({ messages: hello });
    const res = await send("/chat/completions", new Blob([text]).stream());
    expect(res.status).toBe(200);
  });
});

describe("docs/api.md Limits: nesting deeper than 64 is refused before any walk", () => {
  const deep = `{"messages":${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}}`;
  test("chat: 400 naming messages", async () => {
    const error = await envelope(await send("/chat/completions", deep), 400);
    expect(error.param).toBe("messages");
  });
  test("with an Idempotency-Key (the fingerprint walks the body): 400, not 500", async () => {
    await envelope(await send("/chat/completions", deep, { "idempotency-key": "deep-1" }), 400);
  });
  test("a response_format schema nested past the limit: 400 naming response_format, not 502", async () => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 40; i++) schema = { type: "object", properties: { a: schema } };
    const body = JSON.stringify({ messages: hello, response_format: { type: "json_schema", json_schema: { name: "d", schema } } });
    const error = await envelope(await send("/chat/completions", body), 400);
    expect(error.param).toBe("response_format");
  });
  test("exactly 64 levels are accepted", async () => {
    const body = `{"messages":[{"role":"user","content":"hi"}],"x":${"[".repeat(62)}${"]".repeat(62)}}`;
    expect((await send("/chat/completions", body)).status).toBe(200);
  });
  test("/cache/invalidate and /feedback answer their 422 for a deep body", async () => {
    const body = `{"tags":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    for (const path of ["/cache/invalidate", "/requests/req_x/feedback"]) {
      const res = await send(path, body);
      expect(res.status).toBe(422);
      expect(res.headers.get("x-gw-api-version")).toBe(API_VERSION);
      expect(JSON.stringify(await res.json())).toContain("nested deeper than 64");
    }
  });
});

describe("docs/api.md Limits: caller labels", () => {
  const over = (n: number) => "x".repeat(n + 1);
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["gw.workflow_id of 3 MB", { gw: { workflow_id: "w".repeat(3_000_000) } }, "gw.workflow_id"],
    ["gw.workflow_id one over", { gw: { workflow_id: over(LIMITS.labelLength) } }, "gw.workflow_id"],
    ["gw.step", { gw: { step: over(LIMITS.labelLength) } }, "gw.step"],
    ["gw.agent", { gw: { agent: over(LIMITS.labelLength) } }, "gw.agent"],
    ["metadata value", { metadata: { team: over(LIMITS.metadataValueLength) } }, "metadata.team"],
    ["metadata value not a string", { metadata: { team: 1 } }, "metadata.team"],
    ["17 metadata keys", { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"])) }, "metadata"],
    ["metadata key of 65", { metadata: { [over(LIMITS.metadataKeyLength)]: "v" } }, "metadata"],
    ["user", { user: over(LIMITS.userLength) }, "user"],
    ["tag", { tags: [over(LIMITS.tagLength)] }, "tags[0]"],
  ];
  for (const [name, extra, param] of cases) {
    test(`${name} -> 400 naming ${param}`, async () => {
      const error = await envelope(await send("/chat/completions", JSON.stringify({ messages: hello, ...extra })), 400);
      expect(error.param).toBe(param);
    });
  }
  test("labels at their limits are accepted and stored", async () => {
    const body = {
      messages: hello, user: "u".repeat(LIMITS.userLength), tags: ["t".repeat(LIMITS.tagLength)],
      gw: { workflow_id: "w".repeat(LIMITS.labelLength), step: "s".repeat(LIMITS.labelLength), agent: "a".repeat(LIMITS.labelLength) },
      metadata: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`${i}`.padEnd(LIMITS.metadataKeyLength, "k"), "v".repeat(LIMITS.metadataValueLength)])),
    };
    expect((await send("/chat/completions", JSON.stringify(body))).status).toBe(200);
  });
  test("/responses and /embeddings hold the same limits", async () => {
    const r = await envelope(await send("/responses", JSON.stringify({ input: "hi", gw: { workflow_id: "w".repeat(300) } })), 400);
    expect(r.param).toBe("gw.workflow_id");
    const e = await envelope(await send("/embeddings", JSON.stringify({ input: "hi", user: "u".repeat(300) })), 400);
    expect(e.param).toBe("user");
  });
});

describe("issue 14 item 1: tokenizer-hostile prompts (test key: the sandbox counts every prompt)", () => {
  test("special-token text in a prompt is counted as text: 200, not an internal error", async () => {
    const res = await send("/chat/completions", JSON.stringify({ messages: [{ role: "user", content: "say <|endoftext|> and <|im_start|>" }] }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { usage: { prompt_tokens: number } };
    expect(body.usage.prompt_tokens).toBeGreaterThan(10);
  });
  test("80k identical letters (3.6 s before) are answered with their exact count", async () => {
    const res = await send("/chat/completions", JSON.stringify({ messages: [{ role: "user", content: "a".repeat(80_000) }] }));
    expect(res.status).toBe(200);
    // o200k: 8 letters per token; 3 + 3 tokens of chat framing.
    expect(((await res.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens).toBe(10_000 + 6);
  });
  test("a 9 MiB unbroken run gets its answer (over every window: the route error in the envelope)", async () => {
    const res = await send("/chat/completions", JSON.stringify({ messages: [{ role: "user", content: "Q".repeat(9 * MIB) }] }));
    expect(res.headers.get("x-gw-api-version")).toBe(API_VERSION);
    expect([200, 400, 503]).toContain(res.status);
  });
  test("a light request is answered while a hostile body is still arriving", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const head = new TextEncoder().encode(`{"messages":[{"role":"user","content":"${"b".repeat(MIB)}`);
    const tail = new TextEncoder().encode(`"}]}`);
    let step = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        if (step === 0) c.enqueue(head);
        if (step === 1) await gate;
        if (step === 1) c.enqueue(tail);
        if (step === 2) c.close();
        step++;
      },
    });
    const hostile = send("/chat/completions", body);
    const models = await fetch(`${gw.url}/models`, { headers: { authorization: `Bearer ${gw.testKey}` } });
    expect(models.status).toBe(200);
    expect(step).toBeLessThan(3); // the hostile body is still open
    release();
    expect((await hostile).status).toBe(200);
  });
});

describe("docs/api.md Limits: a body that never finishes arriving", () => {
  test("readBodyText answers 408 invalid_request at its deadline (chunked and declared length)", async () => {
    const stalled = () => new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new TextEncoder().encode("{")) });
    for (const headers of [{}, { "content-length": "100" }]) {
      const req = new Request("http://gw/v1/chat/completions", { method: "POST", body: stalled(), headers, duplex: "half" } as RequestInit);
      const err = await readBodyText(req, LIMITS.bodyBytes, 20).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GwError);
      expect({ status: (err as GwError).status, code: (err as GwError).code }).toEqual({ status: 408, code: "invalid_request" });
    }
  });
});
