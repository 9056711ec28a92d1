// Recommendations (docs/dashboard.md "Recommendations"): a cheaper model per task kind only with
// enough ratings, and the semantic cache where exact repeats are frequent. The rule is pure functions
// over 30 days of live ratings (feedback) and per-model rollups; `recommend` reads both.
import type { ModelRollupRow, ModelRollupsRepo } from "../store/repos/model-rollups.ts";
import type { RatingStats, ViewReads } from "../store/repos/view-reads.ts";

export const RULE = {
  windowDays: 30,
  minRatings: 30,
  /** The candidate's lower bound may sit at most this far below the current model's mean rating. */
  maxMeanDrop: 0.2,
  /** The candidate must cost at least this share less per request. */
  minCostCut: 0.2,
  /** One-sided bound of a normal 95% interval on the mean rating. */
  z: 1.96,
  /** enable_semantic_cache: at least this share of exact cache hits, over at least this many requests. */
  minExactShare: 0.1,
  minRequests: 100,
  /** Near-repeats are assumed half as frequent as exact repeats. */
  semanticYield: 0.5,
} as const;

export const RULE_TEXT =
  `For each task kind, the current model is the one most used in the last ${RULE.windowDays} days; another model is recommended only with ` +
  `at least ${RULE.minRatings} live ratings in those days, the lower bound of a normal 95% interval on its mean rating (mean - 1.96 x sd / sqrt(n)) ` +
  `no more than ${RULE.maxMeanDrop} below the current model's mean, and a cost per request (requests not served from the cache) at least ` +
  `${RULE.minCostCut * 100}% lower; the saving is the cost difference per request times the task's requests in ${RULE.windowDays} days. ` +
  `The semantic cache is recommended when it is off and at least ${RULE.minExactShare * 100}% of at least ${RULE.minRequests} requests were exact cache hits.`;

/** One (task, model)'s live traffic in the window. */
export interface TaskModelUsage { task: string; model: string; requests: number; cacheHits: number; cost: number }

export interface CheaperModel {
  kind: "cheaper_model"; task: string; current_model: string; candidate_model: string; ratings: number;
  candidate_mean: number; candidate_lcb: number; current_mean: number;
  current_cost_per_request: number; candidate_cost_per_request: number; monthly_saving_usd: number;
}

export interface EnableSemanticCache {
  kind: "enable_semantic_cache"; exact_repeat_share: number; requests_30d: number; estimated_monthly_saving_usd: number;
}

const EPSILON = 1e-9;
const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits;

export const meanOf = (s: RatingStats): number => s.sum / s.count;

/** mean - z * sd / sqrt(n), sd the sample standard deviation; -Infinity below two ratings. */
export function lowerBound(s: RatingStats): number {
  if (s.count < 2) return -Infinity;
  const mean = meanOf(s);
  const variance = Math.max(0, (s.sumSquares - s.count * mean * mean) / (s.count - 1));
  return mean - (RULE.z * Math.sqrt(variance)) / Math.sqrt(s.count);
}

/** Cost per request of the requests a model answered upstream (cache hits cost nothing). */
const costPerRequest = (u: TaskModelUsage): number | null => (u.requests - u.cacheHits > 0 ? u.cost / (u.requests - u.cacheHits) : null);

export function cheaperModels(usage: readonly TaskModelUsage[], ratings: readonly RatingStats[]): CheaperModel[] {
  const out: CheaperModel[] = [];
  for (const task of new Set(usage.map((u) => u.task))) {
    if (task === "") continue;
    const models = usage.filter((u) => u.task === task && u.model !== "");
    const current = [...models].sort((a, b) => b.requests - a.requests || a.model.localeCompare(b.model))[0];
    const currentRatings = current && ratings.find((r) => r.task === task && r.model === current.model);
    const currentCost = current && costPerRequest(current);
    if (!current || !currentRatings || currentRatings.count === 0 || !currentCost) continue;
    const currentMean = meanOf(currentRatings);
    const taskRequests = usage.filter((u) => u.task === task).reduce((s, u) => s + u.requests, 0);
    let best: CheaperModel | null = null;
    for (const candidate of models) {
      if (candidate.model === current.model) continue;
      const r = ratings.find((x) => x.task === task && x.model === candidate.model);
      const cost = costPerRequest(candidate);
      if (!r || r.count < RULE.minRatings || cost === null) continue;
      const lcb = lowerBound(r);
      if (lcb < currentMean - RULE.maxMeanDrop - EPSILON) continue;
      if (cost > currentCost * (1 - RULE.minCostCut) * (1 + EPSILON)) continue;
      const saving = (currentCost - cost) * taskRequests;
      if (best && best.monthly_saving_usd >= saving) continue;
      best = {
        kind: "cheaper_model", task, current_model: current.model, candidate_model: candidate.model, ratings: r.count,
        candidate_mean: round(meanOf(r), 3), candidate_lcb: round(lcb, 3), current_mean: round(currentMean, 3),
        current_cost_per_request: round(currentCost, 10), candidate_cost_per_request: round(cost, 10), monthly_saving_usd: round(saving, 6),
      };
    }
    if (best) out.push(best);
  }
  return out.sort((a, b) => b.monthly_saving_usd - a.monthly_saving_usd);
}

export function semanticCacheAdvice(
  policy: { cacheOn: boolean; semanticOn: boolean },
  totals: { requests: number; exactHits: number; cost: number },
): EnableSemanticCache | null {
  if (!policy.cacheOn || policy.semanticOn || totals.requests < RULE.minRequests) return null;
  const share = totals.exactHits / totals.requests;
  if (share < RULE.minExactShare - EPSILON) return null;
  return {
    kind: "enable_semantic_cache", exact_repeat_share: round(share, 4), requests_30d: totals.requests,
    estimated_monthly_saving_usd: round(totals.cost * share * RULE.semanticYield, 6),
  };
}

/** The minutes the recommendations read: the last 30 days up to the end of the current minute. */
export function recommendationWindow(now: number): { from: number; to: number } {
  const minute = 60_000;
  const to = now - (now % minute) + minute;
  return { from: to - RULE.windowDays * 86_400_000, to };
}

/** The recommendations from the window's per-model rollup rows and ratings, however they were read
 * (SQLite here, PostgreSQL in the multi-instance mode). Test traffic never counts. */
export function recommendFrom(rows: Iterable<Pick<ModelRollupRow, "test" | "task" | "model" | "requests" | "cache_exact" | "cache_semantic" | "cost">>,
  ratings: readonly RatingStats[], policy: { cacheOn: boolean; semanticOn: boolean }): Array<CheaperModel | EnableSemanticCache> {
  const usage = new Map<string, TaskModelUsage>();
  const totals = { requests: 0, exactHits: 0, cost: 0 };
  for (const r of rows) {
    if (r.test === 1) continue;
    totals.requests += r.requests;
    totals.exactHits += r.cache_exact;
    totals.cost += r.cost;
    const key = `${r.task}\u0000${r.model}`;
    const u = usage.get(key) ?? { task: r.task, model: r.model, requests: 0, cacheHits: 0, cost: 0 };
    u.requests += r.requests;
    u.cacheHits += r.cache_exact + r.cache_semantic;
    u.cost += r.cost;
    usage.set(key, u);
  }
  const advice = semanticCacheAdvice(policy, totals);
  return [...cheaperModels([...usage.values()], ratings), ...(advice ? [advice] : [])];
}

/** The project's recommendations from its last 30 days (live requests and live, counted ratings). */
export function recommend(
  src: { models: ModelRollupsRepo; reads: ViewReads }, projectId: string, policy: { cacheOn: boolean; semanticOn: boolean }, now: number,
): Array<CheaperModel | EnableSemanticCache> {
  const { from, to } = recommendationWindow(now);
  return recommendFrom(src.models.rows(projectId, from, to), src.reads.ratingStats(projectId, from), policy);
}
