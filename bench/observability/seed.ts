// Seeds a real gw data directory with a million request-log rows for the bench project (plus ~10%
// for two other projects) over the last 30 days, through the request log's own insert path
// (requestsRepo.insertPrepared: rows, traces, metrics rollups) in batches of 256, with the hour
// compaction the log worker runs every minute replayed as the rows' time passes. A seeded
// directory is reused for six hours (its windows are still the last 30 days); BENCH_RESEED=1 forces.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject } from "../../src/admin/projects.ts";
import { issueKey } from "../../src/auth/api-keys.ts";
import { openDatabase } from "../../src/store/db.ts";
import { prepareRow, type PreparedRow } from "../../src/store/log-batch-codec.ts";
import { COL } from "../../src/store/metrics-rollup.ts";
import { apiKeysRepo } from "../../src/store/repos/api-keys.ts";
import { HOUR_MS, metricsRepo } from "../../src/store/repos/metrics.ts";
import { projectsRepo } from "../../src/store/repos/projects.ts";
import { requestsRepo } from "../../src/store/repos/requests.ts";
import { generateRows } from "./rows.ts";

const SEED_VERSION = 2;
const REUSE_MS = 6 * HOUR_MS;
const BATCH = 256;
/** Batches per transaction: the seeding's own commits, not the worker's (256 rows each). */
const BATCHES_PER_COMMIT = 16;

export interface Seeded {
  dataDir: string;
  projectId: string;
  key: string;
  rows: number;
  projectRows: number;
  seededAt: number;
  seconds: number;
  bytes: number;
}

export function seed(options: { rows?: number; dataDir?: string; log?: (line: string) => void } = {}): Seeded {
  const projectRows = options.rows ?? Number(process.env.BENCH_ROWS ?? 1_000_000);
  const dataDir = options.dataDir ?? process.env.BENCH_OBS_DIR ?? join(tmpdir(), "gw-bench-observability");
  const log = options.log ?? ((line: string) => console.error(line));
  const marker = join(dataDir, "seed.json");
  if (existsSync(marker) && process.env.BENCH_RESEED !== "1") {
    const previous = JSON.parse(readFileSync(marker, "utf8")) as Seeded & { version: number; actualProjectRows: number };
    if (previous.version === SEED_VERSION && previous.projectRows === projectRows && Date.now() - previous.seededAt < REUSE_MS) {
      log(`reusing ${dataDir} (seeded ${Math.round((Date.now() - previous.seededAt) / 60_000)} min ago)`);
      return { ...previous, projectRows: previous.actualProjectRows };
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const db = openDatabase(dataDir);
  const projects = projectsRepo(db);
  const ids = ["bench", "other-1", "other-2"].map((name) => createProject(projects, { name }).id);
  const key = issueKey(apiKeysRepo(db), { projectId: ids[0]!, scopes: ["requests"], mode: "live" }).secret;
  const requests = requestsRepo(db);
  const metrics = metricsRepo(db);
  const total = Math.round(projectRows / 0.9);
  const now = Date.now();
  const started = performance.now();
  let batch: PreparedRow[] = [];
  let pending: PreparedRow[][] = [];
  let written = 0;
  let compactedHour = 0;
  const commit = db.transaction((batches: PreparedRow[][]) => {
    for (const b of batches) requests.insertPrepared(b);
  });
  const flush = () => {
    const last = pending.at(-1)?.at(-1);
    commit(pending);
    pending = [];
    // The worker compacts every minute; replaying it once per hour of row time is the same work.
    const lastAt = last ? (last.values[COL.createdAt] as number) : now;
    const hour = lastAt - (lastAt % HOUR_MS);
    if (hour > compactedHour) (metrics.compact(lastAt), (compactedHour = hour));
  };
  for (const record of generateRows(total, now - 30 * 86_400_000, now, ids)) {
    batch.push(prepareRow(record));
    if (batch.length < BATCH) continue;
    pending.push(batch);
    written += batch.length;
    batch = [];
    if (pending.length >= BATCHES_PER_COMMIT) flush();
    if (written % 100_000 < BATCH) log(`seeded ${written} rows, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  if (batch.length > 0) pending.push(batch), (written += batch.length);
  batch = [];
  flush();
  metrics.compact(now);
  db.run("PRAGMA wal_checkpoint(TRUNCATE)");
  const count = db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM requests WHERE project_id = ?").get(ids[0]!)!.n;
  const { page_count, page_size } = db.query<{ page_count: number; page_size: number }, []>(
    "SELECT page_count, page_size FROM pragma_page_count(), pragma_page_size()",
  ).get()!;
  db.close();
  const seeded: Seeded = {
    dataDir, projectId: ids[0]!, key, rows: written, projectRows: count, seededAt: now,
    seconds: (performance.now() - started) / 1000, bytes: page_count * page_size,
  };
  // `projectRows` in the marker is the requested count, so a rerun with the same setting reuses it.
  writeFileSync(marker, JSON.stringify({ ...seeded, projectRows, actualProjectRows: count, version: SEED_VERSION }));
  return { ...seeded, projectRows: count };
}
