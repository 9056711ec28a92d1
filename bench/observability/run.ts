// `bun run bench/observability/run.ts`: GET /metrics for each period and GET /requests for each
// filter through the real app (`app.handle`) over a real database of a million logged requests
// (seed.ts), p50/p95 over many runs; a scan of the log for comparison; the retention's batch
// deletes; and the log worker's insert cost with and without rollups (insert-cost.ts).
// Knobs: BENCH_ROWS (1000000), BENCH_RUNS (200 per scenario), BENCH_RESEED=1, BENCH_OBS_INSERT=0
// (skip the insert cost), BENCH_OBS_DIR. Bounded: every scenario is a fixed number of runs.
import { mkdirSync, writeFileSync } from "node:fs";
import { createApp } from "../../src/http/app.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { DAY_MS, logMaintenance, RETENTION_BATCH } from "../../src/store/log-maintenance.ts";
import { fmt, percentiles, table } from "../lib/stats.ts";
import { insertCost } from "./insert-cost.ts";
import { seed } from "./seed.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const WARMUP = 20;
const started = Date.now();
const seeded = seed();
const config = loadConfig({ port: "0", data: seeded.dataDir }, { GW_SEMANTIC_EMBEDDER: "off" });
const deps = buildDeps(config, { logger: createLogger("silent") });
const app = createApp(deps);
const db = deps.db;
const project = seeded.projectId;

const pick = (sql: string): string => db.query<{ v: string }, [string]>(sql).get(project)!.v;
const half = Math.floor(seeded.projectRows / 2);
const middleId = pick(`SELECT id AS v FROM requests WHERE project_id = ? ORDER BY id DESC LIMIT 1 OFFSET ${half}`);
const workflow = pick("SELECT workflow_id AS v FROM requests WHERE project_id = ? AND workflow_id IS NOT NULL ORDER BY id DESC LIMIT 1");
const trace = pick(`SELECT trace_id AS v FROM requests WHERE project_id = ? ORDER BY id DESC LIMIT 1 OFFSET ${Math.floor(half / 2)}`);
const middle = `<row ${half.toLocaleString("en")}>`;

async function time(path: string): Promise<{ p50: number; p95: number; max: number; note: string }> {
  const request = () => new Request(`http://localhost/v1${path}`, { headers: { authorization: `Bearer ${seeded.key}` } });
  let body: Record<string, unknown> = {};
  for (let i = 0; i < WARMUP; i++) await (await app.handle(request())).text();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const res = await app.handle(request());
    const text = await res.text();
    times.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text}`);
    if (i === 0) body = JSON.parse(text) as Record<string, unknown>;
  }
  const p = percentiles(times);
  const note = Array.isArray(body.data) ? `${body.data.length} rows${body.has_more ? ", has_more" : ""}` : `requests ${body.requests}`;
  return { p50: p.p50, p95: p.p95, max: Math.max(...times), note };
}

const scenarios: Array<[string, string]> = [
  ["GET /metrics?period=1h", "/metrics?period=1h"],
  ["GET /metrics?period=24h", "/metrics?period=24h"],
  ["GET /metrics?period=7d", "/metrics?period=7d"],
  ["GET /metrics?period=30d", "/metrics?period=30d"],
  ["GET /requests (newest page)", "/requests"],
  ["GET /requests?limit=100", "/requests?limit=100"],
  [`GET /requests?after=${middle}`, `/requests?after=${middleId}`],
  ["GET /requests?model=<35% of rows>", "/requests?model=openai/gpt-4o-mini"],
  [`GET /requests?model=<8%>&after=${middle}`, `/requests?model=groq/llama-3.3-70b-versatile&after=${middleId}`],
  ["GET /requests?status=200", "/requests?status=200"],
  ["GET /requests?status=504 (0.5%)", "/requests?status=504"],
  [`GET /requests?status=504&after=${middle}`, `/requests?status=504&after=${middleId}`],
  ["GET /requests?workflow_id=<one of 2,000>", `/requests?workflow_id=${workflow}`],
  ["GET /requests?trace_id=<a trace>", `/requests?trace_id=${trace}`],
  ["GET /requests?model=<35%>&status=429 (two filters)", "/requests?model=openai/gpt-4o-mini&status=429"],
];

const lines: string[] = [
  `# Observability bench (${new Date(started).toISOString()})`, "",
  `${seeded.rows.toLocaleString("en")} log rows over 30 days, ${seeded.projectRows.toLocaleString("en")} of them the bench project's; ` +
    `database ${(seeded.bytes / 1e9).toFixed(2)} GB; seeded in ${seeded.seconds.toFixed(0)} s. ${RUNS} runs per scenario after ${WARMUP} warm-up runs, through app.handle.`,
  "",
];
const rows: string[][] = [];
for (const [name, path] of scenarios) {
  const r = await time(path);
  rows.push([name, fmt(r.p50), fmt(r.p95), fmt(r.max), r.note]);
  console.error(`${name}: p50 ${fmt(r.p50)} ms, p95 ${fmt(r.p95)} ms`);
}
lines.push(...table(["scenario", "p50 ms", "p95 ms", "max ms", "answer"], rows, 1), "");

// What the rollups save: the same 30 days summed from the log rows themselves.
const since = Date.now() - 30 * DAY_MS;
const scan = db.query<{ n: number }, [string, number]>(
  "SELECT COUNT(*) AS n, SUM(cost) AS cost, SUM(latency_ms) AS l FROM requests WHERE project_id = ? AND created_at >= ?",
);
const scans: number[] = [];
for (let i = 0; i < 3; i++) {
  const t0 = performance.now();
  scan.get(project, since);
  scans.push(performance.now() - t0);
}
lines.push(`A scan of the log for the same 30 days (count and two sums, no percentiles): ${fmt(Math.min(...scans), 0)} ms (best of 3).`, "");

// Retention: delete the rows (and traces) of the oldest ~2 hours in the worker's batches, timing
// each delete transaction (the longest another writer could wait for the lock).
const deletes: number[] = [];
let deleted = 0;
const timedPrune = deps.repos.requests.prune;
deps.repos.requests.prune = (...args) => {
  const t0 = performance.now();
  const r = timedPrune(...args);
  if (r.rows > 0) (deletes.push(performance.now() - t0), (deleted += r.rows));
  return r;
};
const maintenance = logMaintenance(db, { requests: deps.repos.requests });
for (let more = true, passes = 0; more && passes < 100; passes++) more = maintenance.pass(Date.now(), 29.92).more;
const dp = percentiles(deletes);
lines.push(`Retention: ${deleted.toLocaleString("en")} old rows and their traces deleted in ${deletes.length} transactions ` +
  `of at most ${RETENTION_BATCH} rows and ${RETENTION_BATCH} traces: p50 ${fmt(dp.p50)} ms, max ${fmt(Math.max(...deletes))} ms each.`, "");

if (process.env.BENCH_OBS_INSERT !== "0") {
  const cost = insertCost();
  lines.push("Log worker insert cost per row (decode + insertPrepared; before and after write the same batches into two " +
    "databases, alternating batch by batch; trimmed mean of per-batch times, median of rounds):", "");
  lines.push(...table(["batch", "µs per row"], Object.entries(cost).map(([k, v]) => [k, fmt(v)]), 1), "");
}
lines.push(`Total bench time: ${((Date.now() - started) / 1000).toFixed(0)} s.`);
await deps.logSink.close();
db.close();
const report = lines.join("\n");
console.log(report);
mkdirSync(new URL("../results/", import.meta.url).pathname, { recursive: true });
writeFileSync(new URL(`../results/observability-${new Date(started).toISOString().replace(/[:.]/g, "-")}.md`, import.meta.url).pathname, report + "\n");
