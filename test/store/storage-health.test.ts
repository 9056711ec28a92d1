// Storage health (src/store/storage-health.ts, docs/availability.md "Storage"): the log and ledger
// writers' bounds and failures fail gw closed, a disk-full error releases the reserve and retries
// at once, and health returns by itself once writes succeed and the reserve is back.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LedgerWriter } from "../../src/billing/ledger-writer.ts";
import { newRequestId } from "../../src/lib/ids.ts";
import { LogWriter, type LogSink } from "../../src/store/log-writer.ts";
import type { LedgerEntry, LedgerRepo } from "../../src/store/repos/ledger.ts";
import type { RequestRecord } from "../../src/store/repos/requests.ts";
import { RESERVE_FILE, StorageHealth, isNoSpace } from "../../src/store/storage-health.ts";

const row = (): RequestRecord => {
  const id = newRequestId();
  return {
    id, projectId: "prj_h", keyId: null, traceId: `trc_${id.slice(4)}`, createdAt: Date.now(), endpoint: "chat.completions",
    requestedModel: null, selectedModel: null, provider: null, task: null, taskSubtype: null, inputTokens: 0, outputTokens: 0,
    cost: 0, saved: 0, cache: null, status: 200, errorCode: null, errorMessage: null, errorCategory: null, latencyMs: 1,
    ttftMs: null, overheadMs: null, fallbacks: 0, workflowId: null, step: null, tags: [], stream: false, test: true, trace: null,
  };
};

/** A sink whose batches wait until released (a log worker stuck on a full disk). */
function stuckSink() {
  const held: Array<() => void> = [];
  const sink: LogSink = { insertBatch: () => new Promise<void>((resolve) => held.push(resolve)) };
  return { sink, release: () => held.splice(0).forEach((r) => r()) };
}

describe("bounded queues fail closed", () => {
  test("the log queue at its bound makes gw unhealthy; at twice it rows are dropped and counted, never silently", async () => {
    const health = new StorageHealth({ dataDir: null, reserveBytes: 0 }).start();
    const { sink, release } = stuckSink();
    const drops: number[] = [];
    const writer = new LogWriter(sink, { batchSize: 1, maxRows: 4, reporter: health.reporter("log"), onDrop: (n) => drops.push(n) });
    for (let i = 0; i < 3; i++) writer.enqueue(row());
    expect(health.healthy).toBe(true);
    writer.enqueue(row());
    expect(health.healthy).toBe(false);
    expect(health.reason).toContain("request log");
    for (let i = 0; i < 6; i++) writer.enqueue(row());
    expect(writer.pending).toBe(8);
    expect(drops).toEqual([1, 2]);
    // A drain with a deadline gives up instead of hanging; the rows are still queued.
    expect(await writer.drainWithin(5)).toBe(false);
    release();
    await writer.drain();
    expect(health.healthy).toBe(true);
    health.stop();
  });

  test("a failing ledger write fails closed and keeps its entries; the next success recovers", async () => {
    const health = new StorageHealth({ dataDir: null, reserveBytes: 0 }).start();
    const written: LedgerEntry[] = [];
    let failing = true;
    const repo = { appendMany: (e: LedgerEntry[]) => { if (failing) throw new Error("SQLITE_IOERR: disk I/O error"); written.push(...e); } } as unknown as LedgerRepo;
    const writer = new LedgerWriter(repo, () => {}, { reporter: health.reporter("ledger") });
    writer.append({ projectId: "p", kind: "charge", amount: 7, createdAt: 1 });
    writer.flush();
    expect(health.healthy).toBe(false);
    expect(health.reason).toContain("billing ledger");
    expect(writer.pending).toBe(1);
    failing = false;
    writer.flush();
    expect(written.map((e) => e.amount)).toEqual([7]);
    expect(health.healthy).toBe(true);
    health.stop();
  });
});

describe("the disk reserve", () => {
  test("made at start; a disk-full error deletes it and retries the writers at once; gw stays closed until it is back", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gw-reserve-"));
    try {
      const health = new StorageHealth({ dataDir: dir, reserveBytes: 1 << 20 }).start();
      const file = join(dir, RESERVE_FILE);
      expect(statSync(file).size).toBe(1 << 20);
      const reporter = health.reporter("log");
      const retried = Promise.withResolvers<void>();
      reporter.onSpaceFreed(() => retried.resolve());
      reporter.writeFailed(Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }));
      expect(existsSync(file)).toBe(false);
      await retried.promise;
      reporter.writeOk();
      // Written again, but without its reserve gw does not acknowledge yet.
      expect(health.healthy).toBe(false);
      expect(health.reason).toContain("reserve");
      health.probe();
      expect(health.healthy).toBe(true);
      expect(statSync(file).size).toBe(1 << 20);
      await health.whenHealthy();
      health.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("disk-full errors are recognised as SQLite and the OS report them, across the worker boundary", () => {
    expect(isNoSpace(new Error("SQLITE_FULL: database or disk is full"))).toBe(true);
    expect(isNoSpace(Object.assign(new Error("no space"), { code: "ENOSPC" }))).toBe(true);
    expect(isNoSpace(new Error("database is locked"))).toBe(false);
  });
});
