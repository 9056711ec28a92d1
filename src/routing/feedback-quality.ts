// Quality from feedback (gateway-api.md 2.4, 4.11; issue 5 item 10): per (model, task kind) the
// router's quality is a Bayesian average of the catalog's prior and the ratings received, so a
// few ratings move it little and many move it far. Ratings 1..5 map to 0..1. The feedback endpoint
// (observability issue) feeds it; until then it is fed in process and starts empty.
import type { CatalogModel, TaskKind } from "./catalog-types.ts";

/** The prior counts as this many ratings. */
const PRIOR_WEIGHT = 20;

export class FeedbackQuality {
  private sums = new Map<string, { total: number; count: number }>();

  record(modelId: string, task: TaskKind, rating: number): void {
    if (!Number.isInteger(rating) || rating < 1 || rating > 5) throw new RangeError("rating must be an integer from 1 to 5");
    const key = `${modelId}\u0000${task}`;
    const s = this.sums.get(key) ?? { total: 0, count: 0 };
    s.total += (rating - 1) / 4;
    s.count += 1;
    this.sums.set(key, s);
  }

  /** The quality the router uses: the prior alone until ratings arrive. */
  quality(model: CatalogModel, task: TaskKind): number {
    const prior = model.quality[task] ?? model.quality.general;
    const s = this.sums.get(`${model.id}\u0000${task}`);
    if (!s) return prior;
    return Math.round(((prior * PRIOR_WEIGHT + s.total) / (PRIOR_WEIGHT + s.count)) * 1000) / 1000;
  }

  ratings(modelId: string, task: TaskKind): number {
    return this.sums.get(`${modelId}\u0000${task}`)?.count ?? 0;
  }
}
