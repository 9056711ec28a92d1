// Ratings on PostgreSQL (docs/scale-out.md): a rating is one call of
// gw_rate_feedback (migration 011), which answers the rating it replaced and its key's sums; the
// sums table, kept by a trigger, is what every instance re-reads for the router's quality.
import type { FeedbackAggregate, FeedbackStore, FeedbackSums } from "../repos/feedback.ts";
import { bounded, type Postgres } from "./connect.ts";

/** Most sums rows one read returns; a reader pages on (changed_at, seq). */
export const SUMS_PAGE = 1_000;

interface SumsRow {
  project_id: string; test: boolean; model_id: string; task: string; rating_sum: string | number; count: string | number;
  seq: string | number; changed_at: string | number;
}

const sumsOf = (r: SumsRow): FeedbackSums & { changedAt: number } => ({
  projectId: r.project_id, test: r.test, modelId: r.model_id, task: r.task, ratingSum: Number(r.rating_sum), count: Number(r.count),
  seq: Number(r.seq), changedAt: Number(r.changed_at),
});

export interface PostgresFeedbackStore extends FeedbackStore {
  /** Sums rows changed at or after `since` (epoch ms, the server's clock) in (changed_at, seq)
   * order, after `after` when given; at most SUMS_PAGE. `now`: the server's clock at the read. */
  sumsChangedSince(since: number, after?: { changedAt: number; seq: number }): Promise<{ rows: Array<FeedbackSums & { changedAt: number }>; now: number }>;
}

export function postgresFeedbackStore(pg: Postgres): PostgresFeedbackStore {
  const { sql } = pg;
  return {
    rate: (f) => bounded(pg, "feedback rate", async () => {
      const [row] = await sql`SELECT previous, rating_sum, count, seq FROM gw_rate_feedback(${f.projectId}::text, ${f.requestId}::text,
        ${f.modelId}::text, ${f.task}::text, ${f.test}::boolean, ${f.counted}::boolean, ${f.rating}::integer, ${f.now}::bigint)`;
      const previous = row?.previous === null || row?.previous === undefined ? null : Number(row.previous);
      if (!row || row.seq === null || row.seq === undefined || f.modelId === null || f.task === null) return { previous, sums: null };
      return {
        previous,
        sums: { projectId: f.projectId, test: f.test, modelId: f.modelId, task: f.task, ratingSum: Number(row.rating_sum), count: Number(row.count), seq: Number(row.seq) },
      };
    }),
    get: (projectId, requestId) => bounded(pg, "feedback read", async () => {
      const [row] = await sql`SELECT rating FROM feedback WHERE project_id = ${projectId} AND request_id = ${requestId}`;
      return row ? Number(row.rating) : null;
    }),
    aggregates: () => bounded(pg, "feedback sums", async () => {
      const rows: SumsRow[] = await sql`SELECT project_id, test, model_id, task, rating_sum, count, seq, changed_at FROM feedback_sums WHERE count > 0`;
      return rows.map((r): FeedbackAggregate => {
        const { projectId, modelId, task, test, ratingSum, count } = sumsOf(r);
        return { projectId, modelId, task, test, ratingSum, count };
      });
    }),
    sumsChangedSince: (since, after) => bounded(pg, "feedback sums changed", async () => {
      const a = after ?? { changedAt: since, seq: -1 };
      // The clock first: a row changed during the read is found again by the next one.
      const [clock] = await sql`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now`;
      const rows: SumsRow[] = await sql`SELECT project_id, test, model_id, task, rating_sum, count, seq, changed_at FROM feedback_sums
        WHERE changed_at >= ${since}::bigint AND (changed_at, seq) > (${a.changedAt}::bigint, ${a.seq}::bigint)
        ORDER BY changed_at, seq LIMIT ${SUMS_PAGE}`;
      return { rows: rows.map(sumsOf), now: Number(clock?.now ?? 0) };
    }),
  };
}

const stores = new WeakMap<Postgres, PostgresFeedbackStore>();
/** The instance's one store on its pool (the feedback route and the follower share it). */
export function sharedFeedbackStore(pg: Postgres): PostgresFeedbackStore {
  let store = stores.get(pg);
  if (!store) stores.set(pg, (store = postgresFeedbackStore(pg)));
  return store;
}

/** A rating commits within the pool's bound (2 s): a read going back this far before the previous
 * one's start finds every change that committed after that read. */
export const FEEDBACK_OVERLAP_MS = 10_000;
export const FEEDBACK_POLL_MS = 2_000;

/** Every instance's ratings in this instance's quality sums: the whole sums table once, then every
 * `intervalMs` the rows changed since the previous read (less the overlap; re-reading one is
 * harmless, `apply` keeps the newest by seq). A failed read is retried at the next tick. */
export function followFeedbackSums(
  store: Pick<PostgresFeedbackStore, "sumsChangedSince">, apply: (s: FeedbackSums) => void,
  options: { intervalMs?: number; onError: (err: unknown) => void },
): { stop(): void; caughtUp(): Promise<void> } {
  let readFrom: number | null = null;
  let running: Promise<void> | null = null;
  let failing = false;
  let stopped = false;
  const poll = async () => {
    const since = readFrom === null ? 0 : readFrom - FEEDBACK_OVERLAP_MS;
    let after: { changedAt: number; seq: number } | undefined;
    let startedAt: number | null = null;
    for (;;) {
      const page = await store.sumsChangedSince(since, after);
      startedAt ??= page.now;
      for (const r of page.rows) apply(r);
      const last = page.rows.at(-1);
      if (!last || page.rows.length < SUMS_PAGE) break;
      after = { changedAt: last.changedAt, seq: last.seq };
    }
    readFrom = startedAt;
  };
  // One read at a time: a tick finding one under way joins it.
  const tick = (): Promise<void> => (running ??= poll().then(() => void (failing = false), (err) => {
    if (!failing && !stopped) options.onError(err);
    failing = true;
  }).finally(() => {
    running = null;
  }));
  void tick();
  const timer = setInterval(tick, options.intervalMs ?? FEEDBACK_POLL_MS);
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
    /** A read begun after this call has ended. */
    caughtUp: async () => {
      await running;
      await tick();
    },
  };
}
