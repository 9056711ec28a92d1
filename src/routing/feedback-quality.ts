// Quality from feedback (docs/routing.md "Score"; docs/security.md "Tenant-local signals"): per
// (model, task kind) a Bayesian average of a prior and the ratings; a project's ratings move its own
// routing, others' reach it only through a capped prior. Test-mode ratings stay in their own pool.
import { TASK_KINDS, type CatalogModel, type TaskKind } from "./catalog-types.ts";

/** The prior counts as this many ratings. */
const PRIOR_WEIGHT = 20;
/** Most ratings one project's mean counts as in the cross-project prior. */
export const PROJECT_CAP = 1;

interface Sum { total: number; count: number }

const poolKey = (modelId: string, task: string, test: boolean) => `${test ? "test" : "live"}\u0000${modelId}\u0000${task}`;
const scoreOf = (rating: number) => (rating - 1) / 4;

function checkRating(rating: number): void {
  if (!Number.isInteger(rating) || rating < 1 || rating > 5) throw new RangeError("rating must be an integer from 1 to 5");
}

/** A project's share of the cross-project prior: its mean, weighted by at most PROJECT_CAP ratings. */
function capped(s: Sum | undefined): Sum {
  if (!s || s.count <= 0) return { total: 0, count: 0 };
  const weight = Math.min(s.count, PROJECT_CAP);
  return { total: (s.total / s.count) * weight, count: weight };
}

const bayes = (prior: number, s: Sum): number => (prior * PRIOR_WEIGHT + s.total) / (PRIOR_WEIGHT + s.count);
const round3 = (x: number): number => Math.round(x * 1000) / 1000;

export class FeedbackQuality {
  /** pool key -> project -> its ratings' sum. */
  private own = new Map<string, Map<string, Sum>>();
  /** pool key -> the capped contributions of every project (live pool only), plus raw count. */
  private cross = new Map<string, Sum & { raw: number }>();
  /** Counts rating changes: quality() answers stay the same while it does (route-memo.ts keys on it). */
  private changes = 0;
  /** Multi-instance: the last change applied per (pool key, project), by its number. */
  private seqs = new Map<string, number>();

  epoch(): number {
    return this.changes;
  }

  /** Start-up: the sums rebuilt from the stored ratings (store/repos/feedback.ts aggregates). */
  static from(rows: Iterable<{ projectId: string; modelId: string; task: string; ratingSum: number; count: number; test: boolean }>): FeedbackQuality {
    const quality = new FeedbackQuality();
    for (const r of rows) quality.seed(r.projectId, r.modelId, r.task, r.ratingSum, r.count, r.test);
    return quality;
  }

  record(projectId: string, modelId: string, task: TaskKind, rating: number, test = false): void {
    checkRating(rating);
    this.add(projectId, poolKey(modelId, task, test), scoreOf(rating), 1, test);
  }

  /** A second rating of the same request: the first one's share is replaced, so the request
   * still counts once. */
  replace(projectId: string, modelId: string, task: TaskKind, previous: number, rating: number, test = false): void {
    checkRating(previous);
    checkRating(rating);
    this.add(projectId, poolKey(modelId, task, test), scoreOf(rating) - scoreOf(previous), 0, test);
  }

  /** Start-up load: `count` stored ratings of one project summing to `ratingSum` (each 1..5). */
  seed(projectId: string, modelId: string, task: string, ratingSum: number, count: number, test = false): void {
    if (count <= 0) return;
    this.add(projectId, poolKey(modelId, task, test), (ratingSum - count) / 4, count, test);
  }

  /** Multi-instance: one key's counted sums as PostgreSQL holds them after a change numbered `seq`
   * (store/postgres/feedback.ts); a change older than one applied already is ignored. */
  set(s: { projectId: string; modelId: string; task: string; test: boolean; ratingSum: number; count: number; seq: number }): void {
    const key = poolKey(s.modelId, s.task, s.test);
    const id = `${key}\u0000${s.projectId}`;
    if ((this.seqs.get(id) ?? -1) >= s.seq) return;
    this.seqs.set(id, s.seq);
    const total = (s.ratingSum - s.count) / 4;
    const current = this.own.get(key)?.get(s.projectId) ?? { total: 0, count: 0 };
    this.add(s.projectId, key, total - current.total, s.count - current.count, s.test);
    // Exactly PostgreSQL's figures, not a difference added to them.
    const stored = this.own.get(key)?.get(s.projectId);
    if (stored) stored.total = total;
  }

  /** The quality the router uses for `projectId`: the catalog's, moved by the other projects'
   * capped shares (live only), then by the project's own ratings. No project: the shared prior. */
  quality(model: CatalogModel, task: TaskKind, test = false, projectId: string | null = null): number {
    const catalog = model.quality[task] ?? model.quality.general;
    const key = poolKey(model.id, task, test);
    const mine = projectId === null ? undefined : this.own.get(key)?.get(projectId);
    const cross = test ? undefined : this.cross.get(key);
    if (!mine && !cross) return catalog;
    let prior = catalog;
    if (cross) {
      // The project's own share is taken out of the prior: its ratings count once, at full weight.
      const self = capped(mine);
      prior = bayes(catalog, { total: cross.total - self.total, count: cross.count - self.count });
    }
    return round3(mine ? bayes(prior, mine) : prior);
  }

  /** Ratings counted: the project's own, or (no project) every project's. */
  ratings(modelId: string, task: TaskKind, test = false, projectId: string | null = null): number {
    const key = poolKey(modelId, task, test);
    if (projectId !== null) return this.own.get(key)?.get(projectId)?.count ?? 0;
    let n = 0;
    for (const s of this.own.get(key)?.values() ?? []) n += s.count;
    return n;
  }

  private add(projectId: string, key: string, total: number, count: number, test: boolean): void {
    this.changes++;
    let byProject = this.own.get(key);
    if (!byProject) this.own.set(key, (byProject = new Map()));
    const s = byProject.get(projectId) ?? { total: 0, count: 0 };
    const before = capped(s);
    s.total += total;
    s.count += count;
    byProject.set(projectId, s);
    if (test) return;
    const after = capped(s);
    const c = this.cross.get(key) ?? { total: 0, count: 0, raw: 0 };
    c.total += after.total - before.total;
    c.count += after.count - before.count;
    c.raw += count;
    this.cross.set(key, c);
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
 * failed request (no model answered), an embeddings request (no task quality to route by), or any
 * cache hit. Only a request a model answered upstream is ratable: a hit is free, so rating hits
 * would let one paid answer be rated thousands of times (issue 15 item 2); a semantic hit's answer
 * was also written for another question. */
export function ratingTarget(r: RatedRequest): { modelId: string; task: TaskKind } | null {
  if (r.status < 200 || r.status >= 300 || r.selectedModel === null || r.endpoint === "embeddings") return null;
  if (r.provider === "cache" || r.cache === "exact" || r.cache === "semantic") return null;
  if (!isRatedTask(r.task)) return null;
  return { modelId: r.selectedModel, task: r.task };
}

const isRatedTask = (task: string | null): task is TaskKind => task !== null && (TASK_KINDS as readonly string[]).includes(task);
