// Idempotency-Key while storage cannot record requests (docs/availability.md "Storage"): the
// request answers 503 service_unavailable before anything runs, claims no key, and the same key
// runs normally once storage is writable again.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { post, startTestGw, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw({ GW_SEMANTIC_EMBEDDER: "off" });
});
afterAll(() => gw.stop());

const body = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "once only" }] };
const claims = () => gw.deps.db.query<{ n: number }, []>("SELECT count(*) AS n FROM idempotency_keys").get()!.n;

test("a keyed request on failing storage is refused without a claim; the key works afterwards", async () => {
  const log = gw.deps.storage.reporter("log");
  const before = claims();
  log.setFull(true);
  try {
    const refused = await post(`${gw.url}/chat/completions`, gw.testKey, body, { "idempotency-key": "k-storage-1" });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("x-gw-api-version")).toBeTruthy();
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("service_unavailable");
    expect(claims()).toBe(before);
  } finally {
    log.setFull(false);
  }
  const served = await post(`${gw.url}/chat/completions`, gw.testKey, body, { "idempotency-key": "k-storage-1" });
  expect(served.status).toBe(200);
  expect(served.headers.get("idempotent-replayed")).toBeNull();
  expect(claims()).toBe(before + 1);
});

test("a claim that cannot be written (disk full) answers 503 in the envelope, and nothing runs", async () => {
  const repo = gw.deps.repos.idempotency;
  const claim = repo.claim;
  repo.claim = () => {
    throw new Error("SQLITE_FULL: database or disk is full");
  };
  try {
    const res = await post(`${gw.url}/chat/completions`, gw.testKey, body, { "idempotency-key": "k-storage-2" });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("service_unavailable");
  } finally {
    repo.claim = claim;
  }
});
