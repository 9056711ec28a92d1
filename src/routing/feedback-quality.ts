// Quality from feedback (gateway-api.md 2.4, 4.11; docs/decisions.md "Feedback"): per (model, task
// kind) the router's quality is a Bayesian average of the catalog's prior and the ratings received,
// so a few ratings move it little and many move it far. Ratings 1..5 map to 0..1. Fed by
// POST /requests/{id}/feedback and loaded from the feedback table at start. Test-mode ratings
// (simulated answers) live in a pool of their own, read only by test-mode routing, so testing
// an integration never moves the quality live traffic is routed by.
import { TASK_KINDS, type CatalogModel, type TaskKind } from "./catalog-types.ts";

/** The prior counts as this many ratings. */
const PRIOR_WEIGHT = 20;

const keyOf = (modelId: string, task: string, test: boolean) => `${test ? "test" : "live"}\u0000${modelId}\u0000${task}`;
const scoreOf = (rating: number) => (rating - 1) / 4;

function checkRating(rating: number): void {
  if (!Number.isInteger(rating) || rating < 1 || rating > 5) throw new RangeError("rating must be an integer from 1 to 5");
}

export class FeedbackQuality {
  private sums = new Map<string, { total: number; count: number }>();

  /** Start-up: the sums rebuilt from the stored ratings (store/repos/feedback.ts aggregates). */
  static from(rows: Iterable<{ modelId: string; task: string; ratingSum: number; count: number; test: boolean }>): FeedbackQuality {
    const quality = new FeedbackQuality();
    for (const r of rows) quality.seed(r.modelId, r.task, r.ratingSum, r.count, r.test);
    return quality;
  }

  record(modelId: string, task: TaskKind, rating: number, test = false): void {
    checkRating(rating);
    this.add(keyOf(modelId, task, test), scoreOf(rating), 1);
  }

  /** A second rating of the same request: the first one's share is replaced, so the request
   * still counts once. */
  replace(modelId: string, task: TaskKind, previous: number, rating: number, test = false): void {
    checkRating(previous);
    checkRating(rating);
    this.add(keyOf(modelId, task, test), scoreOf(rating) - scoreOf(previous), 0);
  }

  /** Start-up load: `count` stored ratings summing to `ratingSum` (each 1..5). */
  seed(modelId: string, task: string, ratingSum: number, count: number, test = false): void {
    if (count <= 0) return;
    this.add(keyOf(modelId, task, test), (ratingSum - count) / 4, count);
  }

  /** The quality the router uses: the prior alone until ratings arrive. */
  quality(model: CatalogModel, task: TaskKind, test = false): number {
    const prior = model.quality[task] ?? model.quality.general;
    const s = this.sums.get(keyOf(model.id, task, test));
    if (!s) return prior;
    return Math.round(((prior * PRIOR_WEIGHT + s.total) / (PRIOR_WEIGHT + s.count)) * 1000) / 1000;
  }

  ratings(modelId: string, task: TaskKind, test = false): number {
    return this.sums.get(keyOf(modelId, task, test))?.count ?? 0;
  }

  private add(key: string, total: number, count: number): void {
    const s = this.sums.get(key) ?? { total: 0, count: 0 };
    s.total += total;
    s.count += count;
    this.sums.set(key, s);
  }
}

/** What a rating is about, from the rated request's log row. */
export interface RatedRequest {
  selectedModel: string | null;
  task: string | null;
  provider: string | null;
  cache: string | null;
  status: number;
  endpoint: string;
}

/** The (model, task) a rating counts for, or null when it is stored but moves no quality: a
 * failed request (no model answered), an embeddings request (no task quality to route by), or a
 * semantic cache hit (the answer was written for another question; a low rating may judge the
 * match, not the model). An exact hit counts: the model wrote that answer to this very request. */
export function ratingTarget(r: RatedRequest): { modelId: string; task: TaskKind } | null {
  if (r.status < 200 || r.status >= 300 || r.selectedModel === null || r.endpoint === "embeddings") return null;
  if (r.provider === "cache" && r.cache !== "exact") return null;
  if (!isRatedTask(r.task)) return null;
  return { modelId: r.selectedModel, task: r.task };
}

const isRatedTask = (task: string | null): task is TaskKind => task !== null && (TASK_KINDS as readonly string[]).includes(task);
