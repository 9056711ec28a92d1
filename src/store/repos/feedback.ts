// Ratings of requests (docs/api.md "Feedback"; migration 006): one per (project, request), the last
// one wins. Every read and write takes the project id, except the start-up aggregate, grouped by
// project (routing/feedback-quality.ts).
import type { Database } from "bun:sqlite";

export interface FeedbackInput {
  projectId: string;
  requestId: string;
  modelId: string | null;
  task: string | null;
  test: boolean;
  /** Whether the rating feeds the router's quality sums (docs/decisions.md "Feedback and retention"). */
  counted: boolean;
  rating: number;
  now: number;
}

/** Counted ratings of one (project, pool, model, task): what FeedbackQuality.seed takes. */
export interface FeedbackAggregate {
  projectId: string;
  modelId: string;
  task: string;
  test: boolean;
  ratingSum: number;
  count: number;
}

export function feedbackRepo(db: Database) {
  const previousStmt = db.query<{ rating: number }, [string, string]>(
    "SELECT rating FROM feedback WHERE project_id = ? AND request_id = ?",
  );
  const upsertStmt = db.query<unknown, [string, string, string | null, string | null, number, number, number, number, number]>(
    `INSERT INTO feedback (project_id, request_id, model_id, task, test, counted, rating, created_at, updated_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
     ON CONFLICT (project_id, request_id) DO UPDATE SET rating = excluded.rating, updated_at = excluded.updated_at`,
  );
  const aggregateStmt = db.query<{ project_id: string; model_id: string; task: string; test: number; rating_sum: number; count: number }, []>(
    `SELECT project_id, model_id, task, test, SUM(rating) AS rating_sum, COUNT(*) AS count FROM feedback
     WHERE counted = 1 AND model_id IS NOT NULL AND task IS NOT NULL GROUP BY project_id, test, model_id, task`,
  );
  // Read and write under one write lock, so two processes rating the same request cannot both
  // see "no previous rating" (each would add it to its sums as a first rating).
  const upsert = db.transaction((f: FeedbackInput): number | null => {
    const previous = previousStmt.get(f.projectId, f.requestId)?.rating ?? null;
    upsertStmt.run(f.projectId, f.requestId, f.modelId, f.task, f.test ? 1 : 0, f.counted ? 1 : 0, f.rating, f.now, f.now);
    return previous;
  });

  return {
    /** Stores the rating; returns the rating it replaced, or null for a first rating. */
    rate(f: FeedbackInput): number | null {
      return upsert.immediate(f);
    },
    get(projectId: string, requestId: string): number | null {
      return previousStmt.get(projectId, requestId)?.rating ?? null;
    },
    aggregates(): FeedbackAggregate[] {
      return aggregateStmt.all().map((r) => ({
        projectId: r.project_id, modelId: r.model_id, task: r.task, test: r.test === 1, ratingSum: r.rating_sum, count: r.count,
      }));
    },
  };
}

export type FeedbackRepo = ReturnType<typeof feedbackRepo>;

/** The sums of one (project, pool, model, task) after a change, numbered: a reader keeps the
 * highest `seq` it applied per key, so an older read never undoes a newer one. */
export interface FeedbackSums extends FeedbackAggregate {
  seq: number;
}

/** Ratings behind one interface (docs/scale-out.md): SQLite's repo on
 * one node, PostgreSQL's feedback table with the instances. */
export interface FeedbackStore {
  /** Stores the rating (the last one wins); `previous` is the rating it replaced, null for a first
   * one; `sums` (PostgreSQL only) are its key's counted sums after it, null when not counted. */
  rate(f: FeedbackInput): Promise<{ previous: number | null; sums: FeedbackSums | null }>;
  get(projectId: string, requestId: string): Promise<number | null>;
  /** Counted ratings per (project, pool, model, task), as FeedbackQuality.from takes them. */
  aggregates(): Promise<FeedbackAggregate[]>;
}

export function sqliteFeedbackStore(repo: FeedbackRepo): FeedbackStore {
  return {
    rate: async (f) => ({ previous: repo.rate(f), sums: null }),
    get: async (projectId, requestId) => repo.get(projectId, requestId),
    aggregates: async () => repo.aggregates(),
  };
}
