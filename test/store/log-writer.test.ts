// The request-log queue (src/store/log-writer.ts; docs/availability.md "Storage"): rows are
// written off the response path in batches, on size or after an interval, survive a reopen of the
// database, and a failing write keeps its rows for the next flush.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newRequestId } from "../../src/lib/ids.ts";
import { openDatabase } from "../../src/store/db.ts";
import { encodeLogBatch } from "../../src/store/log-batch-codec.ts";
import { LogWriter } from "../../src/store/log-writer.ts";
import { requestsRepo, type RequestRecord, type RequestsRepo } from "../../src/store/repos/requests.ts";
import { waitFor } from "../helpers/wait-for.ts";

const PROJECT = "prj_logwriter";

function row(overrides: Partial<RequestRecord> = {}): RequestRecord {
  const id = newRequestId();
  return {
    id, projectId: PROJECT, keyId: "key_x", traceId: `trc_${id.slice(4)}`, createdAt: Date.now(), endpoint: "chat.completions",
    requestedModel: "gw-auto", selectedModel: "openai/gpt-4o-mini", provider: "sandbox", task: "chat", taskSubtype: "conversation",
    inputTokens: 10, outputTokens: 20, cost: 0.0001, saved: 0.001, cache: null, status: 200, errorCode: null, errorMessage: null,
    errorCategory: null, latencyMs: 5, ttftMs: null, overheadMs: 1.5, fallbacks: 0, workflowId: null, step: null, tags: ["t"],
    stream: false, test: true, trace: { spans: [], attempts: [] },
    ...overrides,
  };
}

/** A repo whose insertBatch fails the next `failures` times, then writes through. */
function flakyRepo(inner: RequestsRepo, failures: number): RequestsRepo & { calls: number } {
  const repo = {
    ...inner,
    calls: 0,
    insertBatch(batch: string) {
      repo.calls++;
      if (failures > 0) {
        failures--;
        throw new Error("disk is full (simulated)");
      }
      inner.insertBatch(batch);
    },
  };
  return repo;
}

const count = (db: Database): number => db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM requests").get()!.n;
const listAll = (repo: RequestsRepo) => repo.list(PROJECT, { limit: 100 }).rows;

describe('LogWriter: queued, batched log writes (docs/availability.md "Storage")', () => {
  let dir: string;
  let db: Database;
  let repo: RequestsRepo;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "gw-logwriter-"));
    db = openDatabase(dir);
    repo = requestsRepo(db);
  });
  afterEach(() => {
    try {
      db.close();
    } catch {
      // closed by the test
    }
    rmSync(dir, { recursive: true, force: true });
  });

  test("enqueue does not write on the spot; a full batch flushes at once", () => {
    const writer = new LogWriter(repo, { batchSize: 3, intervalMs: 60_000 });
    writer.enqueue(row());
    writer.enqueue(row());
    expect(count(db)).toBe(0);
    expect(writer.pending).toBe(2);
    writer.enqueue(row());
    // Synchronously written by the third enqueue, without waiting for the (one minute) interval.
    expect(count(db)).toBe(3);
    expect(writer.pending).toBe(0);
    expect(writer.totalWritten).toBe(3);
    writer.enqueue(row());
    expect(count(db)).toBe(3);
    expect(writer.pending).toBe(1);
    writer.flush();
  });

  test("a partial batch is written after the interval, without drain", async () => {
    const writer = new LogWriter(repo, { batchSize: 100, intervalMs: 20 });
    const started = performance.now();
    writer.enqueue(row());
    writer.enqueue(row());
    expect(count(db)).toBe(0);
    await waitFor(() => count(db) === 2, { what: "the interval flush" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(15);
    expect(writer.pending).toBe(0);
    expect(writer.totalWritten).toBe(2);
  });

  test("drain() resolves only once the queued rows are in the database", async () => {
    const writer = new LogWriter(repo, { batchSize: 100, intervalMs: 60_000 });
    const records = [row(), row({ status: 429, errorCode: "rate_limited", errorCategory: "RATE_LIMIT" }), row()];
    for (const r of records) writer.enqueue(r);
    expect(count(db)).toBe(0);
    await writer.drain();
    expect(count(db)).toBe(3);
    expect(writer.pending).toBe(0);
    // Written as given: newest first, fields mapped, trace kept.
    expect(listAll(repo).map((r) => r.id)).toEqual(records.map((r) => r.id).reverse());
    const limited = repo.get(PROJECT, records[1]!.id)!;
    expect(limited).toMatchObject({ status: 429, errorCode: "rate_limited", errorCategory: "RATE_LIMIT", tags: ["t"] });
    expect(limited.trace).toEqual({ spans: [], attempts: [] });
    // Nothing queued: drain resolves at once.
    await writer.drain();
  });

  test("rows survive closing and reopening the database", async () => {
    const writer = new LogWriter(repo, { batchSize: 100, intervalMs: 60_000 });
    const records = Array.from({ length: 5 }, () => row());
    for (const r of records) writer.enqueue(r);
    await writer.drain();
    db.close();
    db = openDatabase(dir);
    const reopened = requestsRepo(db);
    expect(listAll(reopened).map((r) => r.id)).toEqual(records.map((r) => r.id).reverse());
    expect(reopened.get(PROJECT, records[0]!.id)?.trace).toEqual({ spans: [], attempts: [] });
  });

  test("a failing insert keeps its rows, reports onError, and writes them on the next flush", () => {
    const errors: Array<{ err: unknown; rows: number }> = [];
    const flaky = flakyRepo(repo, 1);
    const writer = new LogWriter(flaky, { batchSize: 100, intervalMs: 60_000, onError: (err, rows) => errors.push({ err, rows }) });
    const first = [row(), row()];
    for (const r of first) writer.enqueue(r);
    writer.flush();
    expect(errors).toHaveLength(1);
    expect(errors[0]!.rows).toBe(2);
    expect(String(errors[0]!.err)).toContain("disk is full");
    expect(count(db)).toBe(0);
    expect(writer.pending).toBe(2);
    expect(writer.totalWritten).toBe(0);
    // A row queued after the failure goes out with the kept ones, in order.
    const late = row();
    writer.enqueue(late);
    writer.flush();
    expect(flaky.calls).toBe(2);
    expect(errors).toHaveLength(1);
    expect(count(db)).toBe(3);
    expect(writer.pending).toBe(0);
    expect(listAll(repo).map((r) => r.id)).toEqual([late.id, first[1]!.id, first[0]!.id]);
  });

  test("after a failure the writer retries on its own, and a pending drain() resolves once written", async () => {
    const errors: number[] = [];
    const flaky = flakyRepo(repo, 2);
    const writer = new LogWriter(flaky, { batchSize: 100, intervalMs: 5, onError: (_err, rows) => errors.push(rows) });
    writer.enqueue(row());
    writer.enqueue(row());
    // drain() flushes (fails), the retry timer fails again, the next retry succeeds.
    await writer.drain();
    expect(errors).toEqual([2, 2]);
    expect(flaky.calls).toBe(3);
    expect(count(db)).toBe(2);
    expect(writer.totalWritten).toBe(2);
  });

  test("a closed database fails the write without throwing to the caller; the rows stay queued", () => {
    const errors: unknown[] = [];
    const writer = new LogWriter(repo, { batchSize: 2, intervalMs: 60_000, onError: (err) => errors.push(err) });
    writer.enqueue(row());
    db.close();
    // The batch-size flush runs inside enqueue: it must not throw into the request path.
    expect(() => writer.enqueue(row())).not.toThrow();
    expect(errors).toHaveLength(1);
    expect(writer.pending).toBe(2);
    // Nothing half-written: the reopened database holds no row of the failed batch.
    db = openDatabase(dir);
    expect(count(db)).toBe(0);
  });

  test("the same row written twice (a retried batch that had landed) is stored once", () => {
    const r = row();
    repo.insertBatch(encodeLogBatch([r]));
    repo.insertBatch(encodeLogBatch([r, row()]));
    expect(count(db)).toBe(2);
  });
});
