// Keeps the request log's growth bounded (docs/observability.md "Retention of the request log"):
// compacts rollups into hour rows and deletes expired rows, in the log worker, in small per-project
// transactions, so the request thread never waits on it.
import type { Database } from "bun:sqlite";
import { requestIdAt } from "../lib/ids.ts";
import { metricsRepo, type MetricsRepo } from "./repos/metrics.ts";
import { modelRollupsRepo } from "./repos/model-rollups.ts";
import { requestsRepo, type RequestsRepo } from "./repos/requests.ts";
import { pruneWebhooks } from "./repos/webhook-retention.ts";
import { STATUS_HOUR_DAYS, STATUS_MINUTE_DAYS, statusRollupsRepo } from "./repos/status-rollups.ts";

export const DAY_MS = 86_400_000;
/** Minute rollups serve the edges of a window, so they are kept a little past the longest period (30d). */
export const MINUTE_ROLLUP_DAYS = 32;
/** Hour rollups are small (24 a day per project) and outlive the log rows they summarise. */
export const HOUR_ROLLUP_DAYS = 400;
/** Rows per delete transaction: at a million rows, 500 rows and their traces take ~5 ms, the
 * longest any other writer waits for the lock (docs/benchmarks.md). */
export const RETENTION_BATCH = 500;

export interface MaintenanceOptions {
  /** Log rows and traces older than this are deleted; 0 keeps them forever. */
  retentionDays: number;
  /** Rows (and, separately, traces) deleted per project per transaction. */
  batch?: number;
  /** Time between passes when nothing is left to delete. */
  intervalMs?: number;
  /** Time between passes while deleting a backlog: lets inserts and other writers in. */
  pauseMs?: number;
  now?: () => number;
  onError?: (err: unknown) => void;
}

export interface PassResult {
  rows: number;
  traces: number;
  rollups: number;
  /** Some project still has rows to delete beyond this pass's batch. */
  more: boolean;
}

export function logMaintenance(db: Database, repos: { requests?: RequestsRepo; metrics?: MetricsRepo } = {}) {
  const requests = repos.requests ?? requestsRepo(db);
  const metrics = repos.metrics ?? metricsRepo(db);
  const models = modelRollupsRepo(db);
  const status = statusRollupsRepo(db);
  const projects = db.query<{ id: string }, []>("SELECT id FROM projects");

  /** One pass: compaction, then one batch per project. */
  function pass(now: number, retentionDays: number, batch = RETENTION_BATCH): PassResult {
    const result: PassResult = { rows: 0, traces: 0, rollups: 0, more: false };
    metrics.compact(now);
    models.compact(now);
    status.compact(now);
    const beforeId = retentionDays > 0 ? requestIdAt(now - retentionDays * DAY_MS) : null;
    result.rollups = metrics.prune(now - MINUTE_ROLLUP_DAYS * DAY_MS, now - HOUR_ROLLUP_DAYS * DAY_MS);
    result.rollups += models.prune(now - MINUTE_ROLLUP_DAYS * DAY_MS, now - HOUR_ROLLUP_DAYS * DAY_MS);
    result.rollups += status.prune(now - STATUS_MINUTE_DAYS * DAY_MS, now - STATUS_HOUR_DAYS * DAY_MS);
    if (pruneWebhooks(db, now, batch) >= batch) result.more = true;
    if (beforeId === null) return result;
    for (const { id } of projects.all()) {
      const deleted = requests.prune(id, beforeId, batch);
      result.rows += deleted.rows;
      result.traces += deleted.traces;
      if (deleted.rows === batch || deleted.traces === batch) result.more = true;
    }
    return result;
  }

  /** Runs passes on a timer until stopped; the first soon after start. */
  function start(options: MaintenanceOptions): { stop(): void } {
    const { retentionDays, batch = RETENTION_BATCH, intervalMs = 60_000, pauseMs = 20, now = Date.now } = options;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let stopped = false;
    const tick = () => {
      let more = false;
      try {
        more = pass(now(), retentionDays, batch).more;
      } catch (err) {
        options.onError?.(err);
      }
      if (!stopped) timer = setTimeout(tick, more ? pauseMs : intervalMs);
    };
    timer = setTimeout(tick, Math.min(intervalMs, 1000));
    return {
      stop() {
        stopped = true;
        if (timer !== null) clearTimeout(timer);
      },
    };
  }

  return { pass, start };
}
