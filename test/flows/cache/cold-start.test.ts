// No cold start (issue 22 item 5, docs/semantic-cache.md "Cold start"): a fresh `gw serve` (real
// process, the sentence model) asked a question and at once its paraphrase serves the paraphrase
// from the semantic cache, however long the model takes to load; and after a kill -9 the answers
// stored since the last clean stop are found again. Awaited conditions only, no sleeps.
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DB_FILE } from "../../../src/store/db.ts";
import { killAll, Served } from "../../helpers/served.ts";
import { waitFor } from "../../helpers/wait-for.ts";

const ADMIN = "cold-start-admin-token-0123456789";
const KEY_RE = /gw_test_[0-9a-z]{40}/;
const ENV = { GW_SEMANTIC_EMBEDDER: "use", GW_ADMIN_TOKEN: ADMIN, GW_LOG_LEVEL: "info" };
const dir = mkdtempSync(join(tmpdir(), "gw-cold-start-"));

afterAll(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

interface Served1 { cache: string | null; content: string }
async function ask(gw: Served, key: string, content: string, extra: Record<string, unknown> = {}): Promise<Served1> {
  const res = await fetch(`${gw.url}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gw-auto", messages: [{ role: "user", content }], ...extra }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { choices: Array<{ message: { content: string } }>; gw: { cache: string | null } };
  return { cache: body.gw.cache, content: body.choices[0]!.message.content };
}

/** Waits until the answer to `question` is a row in SQLite (the store writes off the request path). */
async function storedOnDisk(question: string): Promise<void> {
  const db = new Database(join(dir, DB_FILE), { readonly: true });
  try {
    const q = db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM cache_entries WHERE question = ?");
    await waitFor(() => q.get(question)!.n > 0, { timeoutMs: 10_000, what: "the answer on disk" });
  } finally {
    db.close();
  }
}

/** Asks the paraphrase until it is served from the semantic cache with `original`'s answer (the
 * original is indexed off the request path, once the model has loaded); bounded. A paraphrase that
 * missed is stored too, so it is invalidated (its tag) before the next try: only the original can
 * answer it, and a test key's answer names the question it answered. */
async function paraphraseServes(gw: Served, key: string, question: string, original: string): Promise<void> {
  await waitFor(async () => {
    const answer = await ask(gw, key, question, { cache: { tags: ["paraphrase"] } });
    if (answer.cache === "semantic") {
      expect(answer.content).toBe(original);
      return true;
    }
    const res = await fetch(`${gw.url}/cache/invalidate`, {
      method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ tags: ["paraphrase"] }),
    });
    expect(res.status).toBe(200);
    return false;
  }, { timeoutMs: 60_000, what: `"${question}" served from the semantic cache` });
}

test("a fresh gateway answers a question's paraphrase asked at once from the semantic cache, and after kill -9 too", async () => {
  const first = new Served(dir, { env: ENV });
  const [key] = await first.waitFor(KEY_RE);
  const projectId = (await first.waitFor(/default \((prj_[0-9a-z]+)\)/))[1]!;
  await first.waitUntilServing(key);
  // Turned on after start: nothing has loaded the sentence model yet.
  const patch = await fetch(`${first.url}/admin/projects/${projectId}`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify({ policy: { semantic_cache: true } }),
  });
  expect(patch.status).toBe(200);
  expect(first.stdout).not.toContain("sentence model ready");
  const france = await ask(first, key, "What is the capital of France?");
  expect(france.cache).toBeNull();
  await paraphraseServes(first, key, "What is the capital of France, please?", france.content);
  await first.waitFor(/sentence model ready/);
  expect(await first.terminate()).toBe(0);

  // The policy is on at start: the model loads before the first request and says so.
  const second = new Served(dir, { env: ENV });
  await second.waitFor(/sentence model ready/);
  await second.waitUntilServing(key);
  const keys = await ask(second, key, "How do I rotate the signing keys for the staging cluster?");
  expect(keys.cache).toBeNull();
  await paraphraseServes(second, key, "How do I rotate the signing keys for the staging cluster, please?", keys.content);
  await storedOnDisk("How do I rotate the signing keys for the staging cluster?");
  await second.kill(); // nothing saved: the index on disk is the first process's

  const third = new Served(dir, { env: ENV });
  await third.waitUntilServing(key);
  // On a loaded machine the start-up batch may time out and go to the backlog instead; the
  // paraphrase checks below then wait for the backlog to index it.
  await third.waitFor(/semantic index reconciled with the cache store|answers not embedded at start are retried in the background/);
  await paraphraseServes(third, key, "How do I rotate the signing keys for the staging cluster, please?", keys.content);
  await paraphraseServes(third, key, "What is the capital of France, please?", france.content);
  expect(await third.terminate()).toBe(0);
}, 180_000);
