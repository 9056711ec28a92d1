// The periodic jobs one leader runs for all instances (docs/scale-out.md "Leader"): day partitions
// ahead and retention of the request log, stale credit holds, expired idempotency results and
// sessions, and rollups past their horizon. Each writes through the leader's fenced transaction.
import type { TransactionSQL } from "bun";
import { DAY_MS, HOUR_ROLLUP_DAYS } from "../log-maintenance.ts";
import { STATUS_HOUR_DAYS } from "../repos/status-rollups.ts";
import type { Service } from "../../lib/service.ts";
import { Leader, type LeaderJob } from "./leader.ts";
import type { PostgresMoneyStore } from "./money.ts";
import { dropPartitionsBeforeIn, ensurePartitionsIn } from "./partitions.ts";

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** Days of partitions made ahead of today: a leaderless gap shorter than this loses no row. */
export const PARTITION_DAYS_AHEAD = 2;
/** Added to GW_REQUEST_TIMEOUT_MS for the oldest hold a live request can still have: a stream goes
 * on after its answer starts, and a settle waits on the log and the pool. */
export const STALE_HOLD_MARGIN_MS = 10 * MINUTE_MS;
/** Rows per DELETE and DELETEs per run: a backlog is worked off over several runs, never in one long one. */
const DELETE_BATCH = 1_000;
const DELETE_ROUNDS = 10;
const HOLD_BATCH = 500;
const HOLD_ROUNDS = 4;
/** A DROP of a partition waits for the log's readers and writers; past this it gives up until the next round. */
const DROP_LOCK_TIMEOUT = "2s";
const STOP_BOUND_MS = 5_000;

export interface LeaderJobsOptions {
  money: Pick<PostgresMoneyStore, "releaseStale">;
  /** GW_LOG_RETENTION_DAYS: request-log days older than this are dropped; 0 keeps them. */
  retentionDays: number;
  /** GW_REQUEST_TIMEOUT_MS. */
  requestTimeoutMs: number;
  /** What a run changed, when it changed anything (for one log line). */
  onDone?: (job: string, detail: Record<string, unknown>) => void;
  /** Jobs of the layers above (alerts, webhooks, invoices, ...), registered in buildDeps. */
  extra?: readonly LeaderJob[];
}

/** Deletes, in bounded batches, the rows of `table` matched by `where` (a fixed SQL condition on
 * numbers only); returns how many went. */
async function deleteBatched(tx: TransactionSQL, table: string, where: string): Promise<number> {
  let deleted = 0;
  for (let round = 0; round < DELETE_ROUNDS; round++) {
    const rows = await tx.unsafe(`DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE ${where} LIMIT ${DELETE_BATCH})`);
    deleted += rows.count;
    if (rows.count < DELETE_BATCH) break;
  }
  return deleted;
}

export function leaderJobs(options: LeaderJobsOptions): LeaderJob[] {
  const done = (job: string, detail: Record<string, unknown>) => {
    if (Object.values(detail).some((v) => (Array.isArray(v) ? v.length > 0 : v !== 0))) options.onDone?.(job, detail);
  };
  const jobs: LeaderJob[] = [
    {
      // No default partition exists: a row for a day without one is refused, so days are made ahead.
      name: "partitions",
      everyMs: HOUR_MS,
      run: async (tx, now) => done("partitions", { created: await ensurePartitionsIn(tx, now, PARTITION_DAYS_AHEAD) }),
    },
    {
      // Holds of instances that died (or requests that outlived any answer) give their credit back.
      name: "stale holds",
      everyMs: MINUTE_MS,
      run: async (_tx, now) => {
        const before = now - (options.requestTimeoutMs + STALE_HOLD_MARGIN_MS);
        let released = 0;
        for (let round = 0; round < HOLD_ROUNDS; round++) {
          const n = await options.money.releaseStale(before, now, HOLD_BATCH);
          released += n;
          if (n < HOLD_BATCH) break;
        }
        done("stale holds", { released });
      },
    },
    {
      name: "expired rows",
      everyMs: MINUTE_MS,
      run: async (tx, now) => {
        const at = Math.floor(now);
        done("expired rows", {
          idempotency_keys: await deleteBatched(tx, "idempotency_keys", `expires_at <= ${at}`),
          dashboard_sessions: await deleteBatched(tx, "dashboard_sessions", `expires_at <= ${at}`),
          semantic_vectors: await deleteBatched(tx, "semantic_vectors", `expires_at <= ${at}`),
        });
      },
    },
    {
      // The horizon of everything; folded minutes go after 32 days (src/store/postgres/rollup-hours.ts).
      name: "rollup pruning",
      everyMs: DAY_MS,
      run: async (tx, now) => {
        const horizon = Math.floor(now - HOUR_ROLLUP_DAYS * DAY_MS);
        const status = Math.floor(now - STATUS_HOUR_DAYS * DAY_MS);
        const buckets = `bucket_ms IN (${MINUTE_MS}, ${HOUR_MS})`;
        done("rollup pruning", {
          metrics_rollups: await deleteBatched(tx, "metrics_rollups", `${buckets} AND start_ms < ${horizon}`),
          model_rollups: await deleteBatched(tx, "model_rollups", `${buckets} AND start_ms < ${horizon}`),
          status_rollups: await deleteBatched(tx, "status_rollups", `${buckets} AND start_ms < ${status}`),
        });
      },
    },
  ];
  if (options.retentionDays > 0) {
    jobs.push({
      name: "retention",
      everyMs: DAY_MS,
      run: async (tx, now) => {
        await tx.unsafe(`SET LOCAL lock_timeout = '${DROP_LOCK_TIMEOUT}'`);
        done("retention", { dropped: await dropPartitionsBeforeIn(tx, now - options.retentionDays * DAY_MS) });
      },
    });
  }
  return [...jobs, ...(options.extra ?? [])];
}

export interface LeaderServiceOptions extends LeaderJobsOptions {
  /** GW_DATABASE_URL: the leader keeps one connection of its own (its lock lives on it). */
  url: string;
  instance: string;
  now: () => number;
  /** Leadership changes and job results (info), failed rounds (warn). */
  log: { info(detail: Record<string, unknown>, msg: string): void; warn(detail: Record<string, unknown>, msg: string): void };
  intervalMs?: number;
}

/** The `leader` service of a multi-instance gw: contends from start, stops (unlocking) before the
 * shared state closes. */
export function leaderService(options: LeaderServiceOptions): Service {
  const { log, instance } = options;
  let leader: Leader | null = null;
  return {
    name: "leader",
    start: () => {
      leader = new Leader(options.url, {
        instance,
        now: options.now,
        intervalMs: options.intervalMs,
        onError: (err) => log.warn({ err, instance }, "leader round failed; retrying on the next round"),
        onChange: (leading) => log.info({ instance }, leading ? "this instance is now the leader: it runs the periodic jobs" : "this instance is no longer the leader"),
      });
      for (const job of leaderJobs({ ...options, onDone: (job, detail) => log.info({ job, ...detail }, "leader job done") })) leader.register(job);
      leader.start();
    },
    stop: async () => {
      // A round stuck on an unreachable server must not hold the shutdown: the lock dies with the session anyway.
      if (leader) await Promise.race([leader.stop(), Bun.sleep(STOP_BOUND_MS)]);
      leader = null;
    },
  };
}
