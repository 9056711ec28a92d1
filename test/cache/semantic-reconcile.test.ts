// Start-up reconciles the semantic index with the stored answers (issue 14 item 5, docs/semantic-cache.md
// "Restarts"): after a kill -9 the index saved at the last clean stop is loaded, the answers stored
// since then are indexed, and the ones removed since then are dropped. A real `gw serve` child
// process, killed with SIGKILL so nothing is flushed or saved.
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DB_FILE } from "../../src/store/db.ts";
import { killAll, Served } from "../helpers/served.ts";
import { waitFor } from "../helpers/wait-for.ts";

const ADMIN = "reconcile-admin-token-0123456789";
const KEY_RE = /gw_test_[0-9a-z]{40}/;
const ENV = { GW_SEMANTIC_EMBEDDER: "ngram", GW_ADMIN_TOKEN: ADMIN, GW_LOG_LEVEL: "info" };
const dir = mkdtempSync(join(tmpdir(), "gw-reconcile-"));

afterAll(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

interface Answer { gw: { cache: string | null } }
async function ask(gw: Served, key: string, content: string, extra: Record<string, unknown> = {}): Promise<Answer> {
  const res = await fetch(`${gw.url}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gw-auto", messages: [{ role: "user", content }], ...extra }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Answer;
}

/** Waits until the answer to `question` is a row in SQLite (the store writes off the request path). */
async function storedOnDisk(question: string): Promise<void> {
  const db = new Database(join(dir, DB_FILE), { readonly: true });
  try {
    const q = db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM cache_entries WHERE question = ?");
    await waitFor(() => q.get(question)!.n > 0, { timeoutMs: 10_000, what: "the answer on disk" });
    expect(q.get(question)!.n).toBe(1);
  } finally {
    db.close();
  }
}

test("after kill -9, answers stored since the last clean stop are found semantically and removed ones are dropped", async () => {
  const first = new Served(dir, { env: ENV });
  const [key] = await first.waitFor(KEY_RE);
  const projectId = (await first.waitFor(/default \((prj_[0-9a-z]+)\)/))[1]!;
  await first.waitUntilServing(key);
  const patch = await fetch(`${first.url}/admin/projects/${projectId}`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify({ policy: { semantic_cache: true, semantic_threshold: 0.6 } }),
  });
  expect(patch.status).toBe(200);
  await ask(first, key, "How do I rotate the signing keys for the staging cluster?", { cache: { tags: ["old-docs"] } });
  await storedOnDisk("How do I rotate the signing keys for the staging cluster?");
  expect(await first.terminate()).toBe(0); // a clean stop: the index is saved with this answer

  const second = new Served(dir, { env: ENV });
  await second.waitUntilServing(key);
  await ask(second, key, "How do I export the billing report as a spreadsheet?");
  await storedOnDisk("How do I export the billing report as a spreadsheet?");
  const invalidated = await fetch(`${second.url}/cache/invalidate`, {
    method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ tags: ["old-docs"] }),
  });
  expect(((await invalidated.json()) as { deleted: number }).deleted).toBe(1);
  await second.kill(); // nothing saved: the index on disk is the first process's

  const third = new Served(dir, { env: ENV });
  await third.waitFor(/entries removed from the cache store since the last save dropped/);
  await third.waitFor(/semantic index reconciled with the cache store/);
  expect((await ask(third, key, "How can I export the billing report as a spreadsheet?")).gw.cache).toBe("semantic");
  expect((await ask(third, key, "How can I rotate the signing keys for the staging cluster?")).gw.cache).toBeNull();
  expect(await third.terminate()).toBe(0);
});
