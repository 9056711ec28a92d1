// The log worker's insert cost per row: what log-worker.ts does with each batch (decode the text,
// insertPrepared: rows, traces and, since issue 8, the metrics rollups in one transaction), on
// databases in files, WAL on, like the worker's own connection. Batches of 256 rows (the
// LogWriter's batch size: a saturated gateway) and of 16 (a quieter one flushing every 25 ms).
// "Before" is the same path with the rollups a no-op (the code before issue 8). Both sides write
// the same batches into two databases side by side, alternating batch by batch, so the drift of
// this shared host's speed hits both alike; the per-batch differences give the rollups' cost.
// `bun run bench/observability/insert-cost.ts` prints the figures.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/store/db.ts";
import { decodeLogBatch, encodeLogBatch } from "../../src/store/log-batch-codec.ts";
import type { MetricsRepo } from "../../src/store/repos/metrics.ts";
import { requestsRepo } from "../../src/store/repos/requests.ts";
import { tracesRepo } from "../../src/store/repos/traces.ts";
import { median } from "../lib/stats.ts";
import { generateRows } from "./rows.ts";

const ROWS = Number(process.env.BENCH_INSERT_ROWS ?? 60_000);
const ROUNDS = Number(process.env.BENCH_INSERT_ROUNDS ?? 3);
/** One project gets 90% of the rows, the others share the rest (rows.ts). */
const PROJECTS = Number(process.env.BENCH_INSERT_PROJECTS ?? 2);

const noRollups = { batch: () => ({ add() {}, write() {} }) } as unknown as MetricsRepo;

/** Mean of the middle 80%: other processes stall single batches; the trim keeps those stalls
 * (and the rare checkpoints) out of the comparison. */
function trimmedMean(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const middle = s.slice(Math.floor(s.length * 0.1), Math.ceil(s.length * 0.9));
  return middle.reduce((a, b) => a + b, 0) / middle.length;
}

function openSide(rollups: boolean) {
  const dir = mkdtempSync(join(tmpdir(), "gw-bench-insert-"));
  const db = openDatabase(dir);
  db.run("PRAGMA wal_autocheckpoint = 4000"); // as the log worker sets it
  const repo = rollups ? requestsRepo(db) : requestsRepo(db, tracesRepo(db), noRollups);
  const insert = (batch: string): number => {
    const t0 = performance.now();
    repo.insertPrepared(decodeLogBatch(batch));
    return performance.now() - t0;
  };
  return { insert, close: () => (db.close(), rmSync(dir, { recursive: true, force: true })) };
}

/** µs per row before, after, and the trimmed mean of the paired differences; the first half of
 * the batches warms both databases up and is not timed. */
function round(batchSize: number, seed: number): { before: number; after: number; added: number } {
  const before = openSide(false);
  const after = openSide(true);
  try {
    const now = Date.now();
    const projects = Array.from({ length: PROJECTS }, (_, i) => `prj_bench_${i}`);
    const rows = [...generateRows(ROWS * 2, now - 3_600_000, now, projects, seed)];
    const batches: string[] = [];
    for (let i = 0; i + batchSize <= rows.length; i += batchSize) batches.push(encodeLogBatch(rows.slice(i, i + batchSize)));
    const t = { before: [] as number[], after: [] as number[], added: [] as number[] };
    batches.forEach((batch, i) => {
      const [b, a] = i % 2 === 0 ? [before.insert(batch), after.insert(batch)] : [after.insert(batch), before.insert(batch)].reverse() as [number, number];
      if (i < batches.length / 2) return;
      t.before.push(b!), t.after.push(a!), t.added.push(a! - b!);
    });
    const perRow = (xs: number[]) => (trimmedMean(xs) * 1000) / batchSize;
    return { before: perRow(t.before), after: perRow(t.after), added: perRow(t.added) };
  } finally {
    before.close();
    after.close();
  }
}

export function insertCost(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const size of [256, 16]) {
    const rounds = Array.from({ length: ROUNDS }, (_, i) => round(size, i + 1));
    out[`batch ${size}, before (no rollups)`] = median(rounds.map((r) => r.before));
    out[`batch ${size}, after (rollups)`] = median(rounds.map((r) => r.after));
    out[`batch ${size}, added by rollups`] = median(rounds.map((r) => r.added));
    if (process.env.BENCH_VERBOSE) console.error(size, JSON.stringify(rounds.map((r) => [r.before, r.after, r.added].map((x) => +x.toFixed(2)))));
  }
  return out;
}

if (import.meta.main) {
  for (const [name, us] of Object.entries(insertCost())) console.log(`${name}: ${us.toFixed(2)} µs per row (median of ${ROUNDS} rounds)`);
}
