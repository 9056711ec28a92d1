// The answer store's writes handed to another connection (the log worker in gw): entries stay
// readable until committed, invalidation never lets an older write land after its delete, and a
// failed batch comes back without overtaking a newer write for its key.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteAnswerStore, type AnswerStoreOptions } from "../../src/cache/answer-store.ts";
import type { CacheWriteSink } from "../../src/cache/write-queue.ts";
import { DB_FILE, openDatabase } from "../../src/store/db.ts";
import { workerLogSink } from "../../src/store/log-worker-sink.ts";
import { cacheEntriesRepo, type CacheWrite } from "../../src/store/repos/cache-entries.ts";
import { requestsRepo } from "../../src/store/repos/requests.ts";
import { entry, NOW } from "./answer-store-helpers.ts";

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tempDb() {
  const dir = mkdtempSync(join(tmpdir(), "gw-answers-worker-"));
  const db = openDatabase(dir);
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => db.close());
  return { dir, db, repo: cacheEntriesRepo(db) };
}

/** A sink whose batches commit (through the repo) only when the test says so, or fail. */
function gatedSink(write: (writes: CacheWrite[], lastId: number) => void) {
  const held: Array<{ writes: CacheWrite[]; lastId: number; resolve: () => void; reject: (e: Error) => void }> = [];
  const sink: CacheWriteSink = {
    write: (writes, lastId) => new Promise<void>((resolve, reject) => held.push({ writes, lastId, resolve, reject })),
  };
  return {
    sink,
    held,
    commitNext() {
      const b = held.shift()!;
      write(b.writes, b.lastId);
      b.resolve();
    },
    failNext() {
      held.shift()!.reject(new Error("SQLITE_BUSY: database is locked (simulated)"));
    },
  };
}

const tick = () => new Promise<void>((r) => setTimeout(r, 0));

/** A store over a fresh database whose batches wait at the gate; the batching timer never fires. */
function gatedStore(options: Partial<AnswerStoreOptions> = {}) {
  const { repo } = tempDb();
  const gate = gatedSink((w, id) => repo.write(w, id));
  const store = new SqliteAnswerStore(repo, { memoryBytes: 0, sweepIntervalMs: 0, flushDelayMs: 60_000, sink: gate.sink, ...options });
  return { repo, gate, store };
}

describe("writes made by the log worker's connection", () => {
  test("committed by the worker, readable from this connection and after a restart", async () => {
    const { dir, db, repo } = tempDb();
    const sink = workerLogSink(join(dir, DB_FILE), () => {}, requestsRepo(db), undefined, { cache: (w, id) => repo.write(w, id), ledger: () => {} });
    cleanups.push(() => sink.close());
    const store = new SqliteAnswerStore(repo, { memoryBytes: 1 << 20, sweepIntervalMs: 0, flushDelayMs: 60_000, sink: { write: (w, id) => sink.writeCache(w, id) } });
    const a = store.put(entry({ tags: ["x"] }));
    const b = store.put(entry());
    store.flush();
    // Handed over, not yet committed: still served from memory.
    expect(store.get("proj_a", a.key, NOW)?.id).toBe(a.id);
    await store.flushed();
    expect(repo.byId("proj_a", a.id)?.tags).toEqual(["x"]);
    expect(repo.byId("proj_a", b.id)?.body).toBe(b.body);
    await store.close();
    const again = new SqliteAnswerStore(repo, { memoryBytes: 0, sweepIntervalMs: 0 });
    expect(again.get("proj_a", b.key, NOW)?.id).toBe(b.id);
    expect(again.put(entry()).id).toBeGreaterThan(b.id);
    await again.close();
  });
});

describe("a batch in flight", () => {
  test("stays readable by key and by id until it commits", async () => {
    const { repo, gate, store } = gatedStore();
    const a = store.put(entry());
    store.flush();
    expect(gate.held).toHaveLength(1);
    // memoryBytes 0: nothing is held hot, so these come from the batch in flight.
    expect(store.get("proj_a", a.key, NOW)?.id).toBe(a.id);
    expect(store.byId("proj_a", a.id, NOW)?.id).toBe(a.id);
    gate.commitNext();
    await store.flushed();
    expect(store.get("proj_a", a.key, NOW)?.id).toBe(a.id);
  });

  test("an invalidation waits for it, so the invalidated answer is not on disk after a restart", async () => {
    const { repo, gate, store } = gatedStore({ memoryBytes: 1 << 20 });
    const tagged = store.put(entry({ tags: ["gone"] }));
    const all = store.put(entry({ projectId: "proj_b" }));
    store.flush();
    const byTag = store.invalidate("proj_a", { tags: ["gone"] });
    const whole = store.invalidate("proj_b", { all: true });
    await tick();
    // Nothing deleted yet: the delete must not run before the write it would miss.
    expect(store.get("proj_a", tagged.key, NOW)?.id).toBe(tagged.id);
    gate.commitNext();
    expect(await byTag).toBe(1);
    expect(await whole).toBe(1);
    expect(repo.byId("proj_a", tagged.id)).toBeNull();
    expect(repo.byId("proj_b", all.id)).toBeNull();
    expect(store.get("proj_a", tagged.key, NOW)).toBeNull();
  });

  test("a failed batch is retried, and a newer write for its key queued meanwhile wins", async () => {
    const errors: unknown[] = [];
    const { repo, gate, store } = gatedStore({ onError: (err) => errors.push(err) });
    const old = store.put(entry());
    const other = store.put(entry());
    store.flush();
    const newer = store.put(entry({ key: old.key, body: "newer" }));
    gate.failNext();
    await tick();
    expect(errors).toHaveLength(1);
    expect(store.get("proj_a", old.key, NOW)?.id).toBe(newer.id);
    // Still readable from the queue after the failure.
    expect(store.get("proj_a", other.key, NOW)?.id).toBe(other.id);
    store.flush();
    const batch = gate.held[0]!;
    expect(batch.writes.map((w) => w.entry?.id).sort()).toEqual([other.id, newer.id].sort());
    gate.commitNext();
    await store.flushed();
    expect(repo.byId("proj_a", newer.id)?.body).toBe("newer");
    expect(repo.byId("proj_a", old.id)).toBeNull();
    expect(repo.byId("proj_a", other.id)?.id).toBe(other.id);
  });

  test("close waits for batches in flight and writes what is queued", async () => {
    const { repo, gate, store } = gatedStore();
    const a = store.put(entry());
    store.flush();
    const b = store.put(entry());
    const closed = store.close();
    gate.commitNext();
    await tick();
    gate.commitNext();
    await closed;
    expect(repo.byId("proj_a", a.id)?.id).toBe(a.id);
    expect(repo.byId("proj_a", b.id)?.id).toBe(b.id);
  });
});
