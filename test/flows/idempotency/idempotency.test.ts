// Idempotency-Key with test keys (docs/idempotency.md; docs/api.md "Request headers"): replays
// byte for byte, mismatches, key validation, which results are kept, zero retention, expiry,
// restart recovery and the expiry sweep. Upstream races and client disconnects: idempotency-upstream.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../../src/observability/logger.ts";
import { recoverInterruptedClaims, startIdempotencySweeper } from "../../../src/pipeline/idempotency.ts";
import { ADMIN_TOKEN, post, startTestGw, type TestGw } from "../../helpers/test-gw.ts";
import { waitFor } from "../../helpers/wait-for.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw();
});
afterAll(async () => {
  await gw.stop();
});

let seq = 0;
const newKey = () => `key-${Date.now()}-${++seq}`;
const body = (content = "Say hello", extra: Record<string, unknown> = {}) => ({ model: "gw-fast", messages: [{ role: "user", content }], ...extra });
const chat = (key: string | null, payload: unknown, apiKey = gw.testKey) =>
  post(`${gw.url}/chat/completions`, apiKey, payload, key === null ? {} : { "idempotency-key": key });
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; type: string; param: string | null; category: string; message: string } }).error;
const row = (projectId: string, key: string) => gw.deps.repos.idempotency.get(projectId, key);

describe('an identical request replays the stored result (docs/idempotency.md "Replays")', () => {
  test("the replay is byte-identical, marked Idempotent-Replayed, under the original's request id and gw headers", async () => {
    const key = newKey();
    const first = await chat(key, body());
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const text = await first.text();
    const again = await chat(key, body());
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(text);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    for (const h of ["x-gw-request-id", "x-gw-model", "x-gw-provider", "x-gw-cache", "content-type"]) {
      expect(again.headers.get(h)).toBe(first.headers.get(h));
    }
    expect(again.headers.get("x-gw-api-version")).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(again.headers.get("x-gw-request-id")).toBe((JSON.parse(text) as { gw: { request_id: string } }).gw.request_id);
  });

  test("key order and whitespace do not matter: the same JSON replays", async () => {
    const key = newKey();
    const first = await chat(key, '{"model":"gw-fast","messages":[{"role":"user","content":"Order test"}]}');
    const reordered = await chat(key, '{ "messages": [ { "content": "Order test", "role": "user" } ],\n  "model": "gw-fast" }');
    expect(reordered.status).toBe(200);
    expect(reordered.headers.get("idempotent-replayed")).toBe("true");
    expect(await reordered.text()).toBe(await first.text());
  });

  test("without the header every request runs anew", async () => {
    const a = await chat(null, body("No key"));
    const b = await chat(null, body("No key"));
    expect(a.headers.get("x-gw-request-id")).not.toBe(b.headers.get("x-gw-request-id"));
    expect(b.headers.get("idempotent-replayed")).toBeNull();
  });

  test("a replay is not a new request: the request log holds only the original", async () => {
    const project = gw.newProject("idem-log");
    const apiKey = gw.key({ projectId: project });
    const key = newKey();
    const first = await chat(key, body("Log me once"), apiKey);
    for (let i = 0; i < 3; i++) expect((await chat(key, body("Log me once"), apiKey)).headers.get("idempotent-replayed")).toBe("true");
    await gw.drain();
    const { rows } = gw.deps.repos.requests.list(project, { limit: 100 });
    expect(rows.map((r) => r.id)).toEqual([first.headers.get("x-gw-request-id")!]);
  });
});

describe('the three endpoints that accept the key (docs/api.md "Request headers")', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ["/embeddings", { input: "embed me once" }],
    ["/responses", { model: "gw-fast", input: "respond once" }],
    ["/responses (stream)", { model: "gw-fast", input: "stream a response once", stream: true }],
  ];
  for (const [name, payload] of cases) {
    test(`${name} replays its stored result byte for byte`, async () => {
      const key = newKey();
      const path = name.split(" ")[0]!;
      const first = await post(`${gw.url}${path}`, gw.testKey, payload, { "idempotency-key": key });
      expect(first.status).toBe(200);
      const text = await first.text();
      const again = await post(`${gw.url}${path}`, gw.testKey, payload, { "idempotency-key": key });
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.headers.get("x-gw-request-id")).toBe(first.headers.get("x-gw-request-id"));
      expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
      expect(await again.text()).toBe(text);
    });
  }
});

describe('422 idempotency_mismatch and key scope (docs/idempotency.md "States and answers")', () => {
  test("the same key with a different body answers 422 naming Idempotency-Key", async () => {
    const key = newKey();
    expect((await chat(key, body("First body"))).status).toBe(200);
    const res = await chat(key, body("Second body"));
    expect(res.status).toBe(422);
    expect(await errorOf(res)).toMatchObject({ code: "idempotency_mismatch", type: "invalid_request_error", category: "IDEMPOTENCY_MISMATCH", param: "Idempotency-Key" });
    // Refusals ran nothing but are logged and counted like any failed request.
    await gw.drain();
    const logged = gw.deps.repos.requests.get(gw.projectId, res.headers.get("x-gw-request-id")!);
    expect(logged).toMatchObject({ status: 422, errorCode: "idempotency_mismatch", errorCategory: "IDEMPOTENCY_MISMATCH", requestedModel: "gw-fast" });
  });

  test("the same key on another endpoint is a different request: 422", async () => {
    const key = newKey();
    expect((await chat(key, body("Cross endpoint"))).status).toBe(200);
    const res = await post(`${gw.url}/embeddings`, gw.testKey, body("Cross endpoint"), { "idempotency-key": key });
    expect(res.status).toBe(422);
    expect((await errorOf(res)).code).toBe("idempotency_mismatch");
  });

  test("keys are scoped per project: another project's identical key and body run independently", async () => {
    const key = newKey();
    const mine = await chat(key, body("Per project"));
    const other = await chat(key, body("Per project"), gw.key({ projectId: gw.newProject("idem-other") }));
    expect(other.status).toBe(200);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect(other.headers.get("x-gw-request-id")).not.toBe(mine.headers.get("x-gw-request-id"));
  });
});

describe('invalid keys answer 400 invalid_request naming Idempotency-Key (docs/api.md "Errors")', () => {
  const cases: Array<[string, string]> = [
    ["empty", ""],
    ["256 characters", "k".repeat(256)],
    ["non-ASCII", "clé-ünïcode"],
    ["a control character", "tab\tinside"],
  ];
  for (const [name, key] of cases) {
    test(name, async () => {
      const res = await chat(key, body());
      expect(res.status).toBe(400);
      expect(await errorOf(res)).toMatchObject({ code: "invalid_request", param: "Idempotency-Key" });
    });
  }

  test("255 printable characters, spaces and punctuation included, are a valid key", async () => {
    const key = `${newKey()} !~`.padEnd(255, "x");
    expect((await chat(key, body("Long key"))).status).toBe(200);
    expect((await chat(key, body("Long key"))).headers.get("idempotent-replayed")).toBe("true");
  });
});

describe("docs/idempotency.md: which results are kept", () => {
  test("402 budget_exceeded started executing and is deterministic: kept and replayed", async () => {
    const key = newKey();
    const first = await chat(key, body("Budget", { model: "gw-test:budget_exceeded" }));
    expect(first.status).toBe(402);
    const text = await first.text();
    const again = await chat(key, body("Budget", { model: "gw-test:budget_exceeded" }));
    expect(again.status).toBe(402);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(text);
  });

  for (const [model, status] of [["gw-test:rate_limited", 429], ["gw-test:upstream_error", 502], ["gw-test:provider_unavailable", 503]] as const) {
    test(`${status} (${model}) is transient: the key is released and a retry runs again`, async () => {
      const key = newKey();
      const first = await chat(key, body("Transient", { model }));
      expect(first.status).toBe(status);
      expect(row(gw.projectId, key)).toBeNull();
      const again = await chat(key, body("Transient", { model }));
      expect(again.status).toBe(status);
      expect(again.headers.get("idempotent-replayed")).toBeNull();
      expect(again.headers.get("x-gw-request-id")).not.toBe(first.headers.get("x-gw-request-id"));
    });
  }

  test("400 invalid_request from validation is released: the same key runs again", async () => {
    const key = newKey();
    const bad = { model: "gw-fast", messages: [] };
    expect((await chat(key, bad)).status).toBe(400);
    expect(row(gw.projectId, key)).toBeNull();
    const again = await chat(key, bad);
    expect(again.status).toBe(400);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
  });

  test("a body over the limit answers 413 and claims no key", async () => {
    const key = newKey();
    const res = await chat(key, body("x".repeat(10 * 1024 * 1024 + 1)));
    expect(res.status).toBe(413);
    expect(await errorOf(res)).toMatchObject({ code: "invalid_request" });
    expect(row(gw.projectId, key)).toBeNull();
  });

  test("a body that is not JSON claims no key: the pipeline answers 400", async () => {
    const key = newKey();
    const res = await chat(key, "{not json");
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe("invalid_request");
    expect(row(gw.projectId, key)).toBeNull();
  });

  test("a stream replays the identical SSE bytes as text/event-stream", async () => {
    const key = newKey();
    const first = await chat(key, body("Stream me", { stream: true }));
    const bytes = await first.text();
    expect(bytes.endsWith("data: [DONE]\n\n")).toBe(true);
    const again = await chat(key, body("Stream me", { stream: true }));
    expect(again.headers.get("content-type")).toStartWith("text/event-stream");
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("x-gw-request-id")).toBe(first.headers.get("x-gw-request-id"));
    expect(await again.text()).toBe(bytes);
  });

  test("a stream that ended in an in-stream error completed normally: kept and replayed", async () => {
    const key = newKey();
    const first = await chat(key, body("Fail mid-way", { model: "gw-test:stream_error", stream: true }));
    const bytes = await first.text();
    expect(bytes).toContain('"error"');
    const again = await chat(key, body("Fail mid-way", { model: "gw-test:stream_error", stream: true }));
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(bytes);
  });
});

describe("docs/idempotency.md: retention zero, expiry, restarts and the sweep", () => {
  test("a zero-retention project keeps no content: a retry after completion answers 409", async () => {
    const project = gw.newProject("idem-zero");
    const patched = await fetch(`${gw.url}/admin/projects/${project}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      // Zero retention is a Business feature (docs/billing.md "Plans").
      body: JSON.stringify({ plan: "business", policy: { retention: "zero" } }),
    });
    expect(patched.status).toBe(200);
    const apiKey = gw.key({ projectId: project });
    const key = newKey();
    expect((await chat(key, body("Secret"), apiKey)).status).toBe(200);
    const stored = row(project, key)!;
    expect(stored).toMatchObject({ state: "not_kept", status: 200, headers: null, body: null });
    const again = await chat(key, body("Secret"), apiKey);
    expect(again.status).toBe(409);
    expect(await errorOf(again)).toMatchObject({ code: "conflict", type: "conflict_error", category: "CONFLICT" });
    // The fingerprint is still checked: a different request is a mismatch, not a conflict.
    expect((await chat(key, body("Other"), apiKey)).status).toBe(422);
    const streamKey = newKey();
    expect(await (await chat(streamKey, body("Secret stream", { stream: true }), apiKey)).text()).toContain("[DONE]");
    expect(row(project, streamKey)).toMatchObject({ state: "not_kept", status: 200, body: null });
    expect((await chat(streamKey, body("Secret stream", { stream: true }), apiKey)).status).toBe(409);
  });

  test("an expired key behaves as new: the request runs again", async () => {
    const key = newKey();
    const first = await chat(key, body("Expire me"));
    gw.deps.db.run("UPDATE idempotency_keys SET expires_at = ? WHERE project_id = ? AND key = ?", [Date.now() - 1, gw.projectId, key]);
    const again = await chat(key, body("Expire me"));
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(again.headers.get("x-gw-request-id")).not.toBe(first.headers.get("x-gw-request-id"));
    // A new body under the expired key is a new request too, not a mismatch.
    gw.deps.db.run("UPDATE idempotency_keys SET expires_at = ? WHERE project_id = ? AND key = ?", [Date.now() - 1, gw.projectId, key]);
    expect((await chat(key, body("Something else"))).status).toBe(200);
  });

  test("a claim left running: 409 still running; after the startup recovery, 409 not kept", async () => {
    const key = newKey();
    // What a crash leaves behind: the claim of a request that never finished.
    const first = await chat(key, body("Crash"));
    gw.deps.db.run("UPDATE idempotency_keys SET state = 'running', status = NULL, headers = NULL, body = NULL WHERE project_id = ? AND key = ?", [gw.projectId, key]);
    const running = await chat(key, body("Crash"));
    expect(running.status).toBe(409);
    expect((await errorOf(running)).message).toContain("still running");
    expect(recoverInterruptedClaims(gw.deps.repos.idempotency, gw.deps.logger)).toBeGreaterThanOrEqual(1);
    const after = await chat(key, body("Crash"));
    expect(after.status).toBe(409);
    const error = await errorOf(after);
    expect(error).toMatchObject({ code: "conflict", param: "Idempotency-Key" });
    expect(error.message).toContain("not kept");
    expect(error.message).toContain("new Idempotency-Key");
    expect(first.status).toBe(200);
  });

  test("the sweep deletes expired keys in batches and leaves live ones", async () => {
    const repo = gw.deps.repos.idempotency;
    const project = gw.newProject("idem-sweep");
    const past = Date.now() - 1000;
    for (let i = 0; i < 1200; i++) repo.claim({ projectId: project, key: `old-${i}`, fingerprint: "f", requestId: `req_${i}`, now: past - 10, expiresAt: past });
    repo.claim({ projectId: project, key: "live", fingerprint: "f", requestId: "req_live", now: Date.now(), expiresAt: Date.now() + 60_000 });
    const sweeper = startIdempotencySweeper(repo, createLogger("silent"), 5);
    const count = () => gw.deps.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM idempotency_keys WHERE project_id = ?").get(project)!.n;
    try {
      expect(await waitFor(() => count() === 1)).toBe(true);
    } finally {
      sweeper.stop();
    }
    expect(repo.get(project, "live")).not.toBeNull();
  });
});
