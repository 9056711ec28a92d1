// Retention modes through the real server (docs/api.md "Project policy";
// docs/retention.md): for standard, minimal, zero and redacted, whether the response cache answers
// a repeat and whether an Idempotency-Key retry replays or answers 409 "not kept". Zero's log
// fields (no caller free text) are the record stage's and tested with it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_TOKEN, post, startTestGw, type TestGw } from "../../helpers/test-gw.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw({ GW_SEMANTIC_EMBEDDER: "off" });
});
afterAll(() => gw.stop());

/** A test key of a new project whose policy has this retention, set through the admin API. */
async function keyFor(retention: string, policy: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(`${gw.url}/admin/projects`, {
    method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    // Zero retention is a Business feature (docs/billing.md "Plans").
    body: JSON.stringify({ name: `retention-${retention}`, plan: "business", policy: { retention, ...policy } }),
  });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  return gw.key({ projectId: id, scopes: ["chat", "requests"] });
}

let n = 0;
const ask = (content: string, extra: Record<string, unknown> = {}) =>
  ({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }], ...extra });
/** A question no other test asks. */
const fresh = (text = "What is the tallest mountain in Africa?") => `${text} (case ${++n})`;

async function send(key: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await post(`${gw.url}/chat/completions`, key, body, headers);
  const text = await res.text();
  return { res, text, id: res.headers.get("x-gw-request-id")! };
}

async function traceCache(key: string, id: string): Promise<Record<string, unknown>> {
  await gw.drain();
  const res = await fetch(`${gw.url}/requests/${id}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { trace: { cache: Record<string, unknown> } }).trace.cache;
}

/** Sends the body twice under one Idempotency-Key; returns the retry. */
async function retried(key: string, body: unknown) {
  const headers = { "idempotency-key": `ret-${++n}` };
  const first = await send(key, body, headers);
  expect(first.res.status).toBe(200);
  return { first, again: await send(key, body, headers), headers };
}

const expectReplay = (r: Awaited<ReturnType<typeof retried>>) => {
  expect(r.again.res.status).toBe(200);
  expect(r.again.res.headers.get("idempotent-replayed")).toBe("true");
  expect(r.again.text).toBe(r.first.text);
};
const expectNotKept = (r: Awaited<ReturnType<typeof retried>>) => {
  expect(r.again.res.status).toBe(409);
  const { error } = JSON.parse(r.again.text) as { error: { code: string; message: string } };
  expect(error.code).toBe("conflict");
  expect(error.message).toContain("not kept");
};

describe("standard: everything is kept", () => {
  test("a repeat is an exact hit; a retry replays", async () => {
    const key = await keyFor("standard");
    const q = fresh();
    await send(key, ask(q));
    const again = await send(key, ask(q));
    expect(again.res.headers.get("x-gw-cache")).toBe("exact");
    expectReplay(await retried(key, ask(fresh())));
    expectReplay(await retried(key, ask(fresh(), { stream: true })));
  });
});

for (const mode of ["minimal", "zero"] as const) {
  describe(`${mode}: no content is kept; log rows and traces are`, () => {
    test(`the cache is neither read nor stored (miss_reason retention_${mode})`, async () => {
      const key = await keyFor(mode);
      const q = fresh();
      await send(key, ask(q));
      const again = await send(key, ask(q));
      expect(again.res.status).toBe(200);
      expect(again.res.headers.get("x-gw-cache")).toBe("miss");
      expect(await traceCache(key, again.id)).toMatchObject({ result: "skip", miss_reason: `retention_${mode}` });
    });

    test("an idempotency retry answers 409 not kept; the fingerprint is still checked", async () => {
      const key = await keyFor(mode);
      const r = await retried(key, ask(fresh()));
      expectNotKept(r);
      const stored = gw.deps.db.query<{ state: string; status: number; body: Uint8Array | null; headers: string | null }, [string]>(
        "SELECT state, status, body, headers FROM idempotency_keys WHERE key = ?",
      ).get(r.headers["idempotency-key"]);
      expect(stored).toEqual({ state: "not_kept", status: 200, body: null, headers: null });
      expect((await send(key, ask(fresh()), r.headers)).res.status).toBe(422);
      expectNotKept(await retried(key, ask(fresh(), { stream: true })));
    });
  });
}

describe("redacted: only content with nothing to redact is kept", () => {
  let key: string;
  beforeAll(async () => {
    key = await keyFor("redacted");
  });

  test("a clean question and answer are cached and replayed", async () => {
    const q = fresh();
    const first = await send(key, ask(q));
    expect(await traceCache(key, first.id)).toMatchObject({ stored: { ttl_class: expect.any(String) } });
    expect((await send(key, ask(q))).res.headers.get("x-gw-cache")).toBe("exact");
    expectReplay(await retried(key, ask(fresh())));
    expectReplay(await retried(key, ask(fresh(), { stream: true })));
  });

  test("personal data in the request: not cached (stored.skipped), and a retry is not replayed", async () => {
    // With a `user`, docs/cache.md "Classification" lets a personal request be cached; redacted still stores nothing.
    const body = ask(fresh("Draft a short thank-you note to ada.lovelace@example.com"), { user: "u-1" });
    const first = await send(key, body);
    expect(await traceCache(key, first.id)).toMatchObject({ result: "miss", stored: { skipped: "retention_redacted", found: "personal_data" } });
    expect((await send(key, body)).res.headers.get("x-gw-cache")).toBe("miss");
    expectNotKept(await retried(key, ask(fresh("Call me back at +1 415-555-0100 about the offer"), { user: "u-1" })));
  });

  test("a secret in the request: not cached, not replayed (with the guard's secrets policy at allow)", async () => {
    // By default (`secrets: redact`, docs/guard.md) the guard replaces the key before the cache
    // sees it, so the redacted request is clean and stored; with `allow` it reaches the store's test.
    const allowing = await keyFor("redacted", { secrets: "allow" });
    const body = ask(fresh("Why does `curl -H 'Authorization: Bearer sk-proj-Abc123def456ghi789jkl012' api` fail?"));
    const first = await send(allowing, body);
    expect(await traceCache(allowing, first.id)).toMatchObject({ stored: { skipped: "retention_redacted", found: "secret" } });
    expect((await send(allowing, body)).res.headers.get("x-gw-cache")).toBe("miss");
    expectNotKept(await retried(allowing, ask(fresh("Is AKIAIOSFODNN7EXAMPLE a valid key format?"))));
    const redacting = await send(key, body);
    expect(await traceCache(key, redacting.id)).toMatchObject({ stored: { ttl_class: expect.any(String) } });
  });

  test("personal data in the answer only: not cached, not replayed (JSON and streams)", async () => {
    // The sandbox fills an `email` property with an address: the answer holds personal data.
    const contact = (stream = false) => ask(fresh("Invent a sample contact card."), {
      stream,
      response_format: { type: "json_schema", json_schema: { name: "contact", schema: { type: "object", properties: { email: { type: "string" } }, required: ["email"] } } },
    });
    const body = contact();
    const first = await send(key, body);
    expect(first.text).toContain("@example.");
    expect(await traceCache(key, first.id)).toMatchObject({ stored: { skipped: "retention_redacted", found: "personal_data" } });
    expect((await send(key, body)).res.headers.get("x-gw-cache")).toBe("miss");
    expectNotKept(await retried(key, contact()));
    expectNotKept(await retried(key, contact(true)));
  });
});
