// Scored routing (docs/routing.md "Score"): a profile or mode sets the required quality and the
// weights of quality, cost and latency; models below it go last, and each next attempt prefers
// another provider. Pure: exclusions and latency come from the caller.
import type { RoutingProfile } from "../config/constants.ts";
import type { CatalogModel, TaskKind } from "./catalog-types.ts";
import { maxCostOf } from "./cost.ts";

export type Workload = "realtime" | "coding" | "batch" | "reasoning" | "content" | "support";
export type RoutingMode = "economy" | "balanced" | "quality" | "max";
export interface Weights { quality: number; cost: number; latency: number }

export interface ScoreInput {
  profile: RoutingProfile;
  mode?: RoutingMode | undefined;
  minQuality?: number | undefined;
  task: TaskKind;
  workload: Workload;
  complexity: "low" | "medium" | "high";
  inputTokens: number;
  /** max_tokens when given, else the task's expected output. */
  outputTokens: number;
}

export interface Scored {
  model: CatalogModel;
  score: number;
  quality: number;
  expectedCost: number;
  latencyMs: number;
  meetsQuality: boolean;
}

export interface Decision {
  requiredQuality: number;
  weights: Weights;
  qualityTask: TaskKind;
  /** Best first; models below the required quality after all that meet it. */
  ranked: Scored[];
  /** Positions in `ranked` of the models equivalent to the best for this request: the spread
   * picks among them (spread.ts). */
  equivalents: number[];
}

/** Equivalent to the best (docs/routing.md "Score"): meeting the bar, a score (0..1) at most
 * SPREAD_MARGIN below it, and an expected cost at most SPREAD_COST_FACTOR times its own, so the
 * spread never trades a cheap answer for a dear one that happens to score as well. */
export const SPREAD_MARGIN = 0.05;
export const SPREAD_COST_FACTOR = 2;

export function equivalentsOf(ranked: readonly Scored[]): number[] {
  const best = ranked[0];
  const out: number[] = [];
  if (!best?.meetsQuality) return out;
  for (let i = 0; i < ranked.length && ranked[i]!.meetsQuality; i++) {
    const r = ranked[i]!;
    if (r.score >= best.score - SPREAD_MARGIN - 1e-9 && r.expectedCost <= best.expectedCost * SPREAD_COST_FACTOR) out.push(i);
  }
  return out;
}

const WORKLOAD_WEIGHTS: Readonly<Record<Workload, Weights>> = {
  realtime: { quality: 0.25, cost: 0.35, latency: 0.4 },
  coding: { quality: 0.5, cost: 0.3, latency: 0.2 },
  batch: { quality: 0.3, cost: 0.6, latency: 0.1 },
  reasoning: { quality: 0.55, cost: 0.3, latency: 0.15 },
  content: { quality: 0.4, cost: 0.4, latency: 0.2 },
  support: { quality: 0.3, cost: 0.45, latency: 0.25 },
};

/** Multipliers a profile or mode puts on the workload's weights (normalised afterwards). */
const TILT: Readonly<Record<string, Weights>> = {
  "gw-fast": { quality: 0.5, cost: 1, latency: 2.5 }, economy: { quality: 0.6, cost: 2, latency: 1 },
  "gw-balanced": { quality: 1, cost: 1, latency: 1 }, balanced: { quality: 1, cost: 1, latency: 1 },
  "gw-quality": { quality: 2.5, cost: 0.7, latency: 0.7 }, quality: { quality: 2.5, cost: 0.7, latency: 0.7 },
  "gw-max": { quality: 6, cost: 0.3, latency: 0.3 }, max: { quality: 6, cost: 0.3, latency: 0.3 },
  "gw-reasoning": { quality: 2.5, cost: 0.7, latency: 0.3 }, "gw-code": { quality: 2.5, cost: 0.7, latency: 0.7 },
};

const REQUIRED: Readonly<Record<string, number>> = {
  "gw-fast": 0.55, economy: 0.6, "gw-balanced": 0.75, balanced: 0.75, "gw-quality": 0.85, quality: 0.85,
  "gw-max": 0.9, max: 0.9, "gw-reasoning": 0.85, "gw-code": 0.85,
};
/** gw-auto's floor per complexity (docs/routing.md "Calibration"). */
const AUTO_REQUIRED = { low: 0.6, medium: 0.72, high: 0.82 } as const;
/** Code, maths and reasoning go wrong expensively: gw-auto asks more of them. */
const AUTO_REQUIRED_DEMANDING = { low: 0.78, medium: 0.85, high: 0.88 } as const;
/** Above its floor, gw-auto asks a medium request for the median quality for the task among the
 * models able to serve it, a high one for the upper quartile: the bar follows the eligible set
 * (vision, tools, a long input narrow it) instead of a constant that suits only the whole catalog. */
const AUTO_QUANTILE = { low: 0, medium: 0.5, high: 0.75 } as const;
const DEMANDING: ReadonlySet<TaskKind> = new Set(["coding", "math", "reasoning"]);
const QUALITY_HEADROOM = 0.08;

/** The q-quantile, linear between neighbours (q 0.5: the middle value, or the mean of the two). */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const at = q * (s.length - 1);
  const lo = Math.floor(at);
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (at - lo);
}

/** `qualities`: each eligible model's quality for the task (gw-auto's quantiles read them). */
export function requiredQuality(input: ScoreInput, qualities: readonly number[] = []): number {
  if (input.minQuality !== undefined) return input.minQuality;
  const key = input.mode ?? input.profile;
  const fixed = REQUIRED[key];
  if (fixed !== undefined) return fixed;
  const floor = (DEMANDING.has(input.task) ? AUTO_REQUIRED_DEMANDING : AUTO_REQUIRED)[input.complexity];
  const q = AUTO_QUANTILE[input.complexity];
  return q > 0 && qualities.length > 0 ? Math.max(floor, Math.round(quantile(qualities, q) * 1000) / 1000) : floor;
}

export function weightsFor(input: ScoreInput): Weights {
  const base = WORKLOAD_WEIGHTS[input.workload];
  const tilt = TILT[input.mode ?? input.profile] ?? { quality: 1, cost: 1, latency: 1 };
  const q = base.quality * tilt.quality;
  const c = base.cost * tilt.cost;
  const l = base.latency * tilt.latency;
  const sum = q + c + l;
  const r = (x: number) => Math.round((x / sum) * 1000) / 1000;
  return { quality: r(q), cost: r(c), latency: r(l) };
}

/** The task whose quality counts: the profile's speciality, else the detected task. */
const qualityTaskOf = (input: ScoreInput): TaskKind =>
  input.profile === "gw-code" && !input.mode ? "coding" : input.profile === "gw-reasoning" && !input.mode ? "reasoning" : input.task;

/** Latency prior when health has no measurement: time to first token plus output at a pace that
 * grows with the model's output price (bigger models are slower). Only its ranking matters. */
export const latencyPriorMs = (m: CatalogModel, outputTokens: number): number =>
  400 + outputTokens * (4 + Math.sqrt(m.output_price) * 4);

/** What scoring reads from feedback and health, apart from the request's size and the latencies:
 * route-memo.ts keeps it while feedback and breaker states hold. */
export interface Prepared {
  requiredQuality: number;
  weights: Weights;
  qualityTask: TaskKind;
  models: readonly CatalogModel[];
  quality: number[];
  health: number[];
  /** Quality capped at what the request needs, and its span. */
  useful: number[];
  qMin: number;
  qMax: number;
}

/** Math.min/Math.max of every value (NaN and signed zeros alike), without spreading. */
function span(xs: readonly number[]): readonly [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const x of xs) {
    lo = Math.min(lo, x);
    hi = Math.max(hi, x);
  }
  return [lo, hi];
}
const norm = (x: number, lo: number, hi: number) => (hi > lo ? (x - lo) / (hi - lo) : 1);

export function prepareScoring(
  models: readonly CatalogModel[],
  input: ScoreInput,
  /** 0..1 from provider health (1 healthy): scales the score, so a failing provider sinks. */
  healthOf: (m: CatalogModel) => number = () => 1,
  /** Quality for a task: the catalog prior, or its blend with feedback (feedback-quality.ts). */
  qualityOf: (m: CatalogModel, task: TaskKind) => number = (m, task) => m.quality[task] ?? m.quality.general,
): Prepared {
  const qualityTask = qualityTaskOf(input);
  const quality = models.map((m) => qualityOf(m, qualityTask));
  const requiredQ = requiredQuality(input, quality);
  // Quality above what the request needs earns nothing more: a greeting does not pay for a
  // reasoning model's quality (the margin keeps a little preference for headroom).
  const useful = quality.map((q) => Math.min(q, requiredQ + QUALITY_HEADROOM));
  const [qMin, qMax] = span(useful);
  return {
    requiredQuality: requiredQ, weights: weightsFor(input), qualityTask, models, quality,
    health: models.map(healthOf), useful, qMin, qMax,
  };
}

/** Ranks prepared models for this request's size and the latencies measured now. */
export function rankPrepared(
  p: Prepared,
  input: ScoreInput,
  measuredLatencyMs: (m: CatalogModel) => number | null = () => null,
): Decision {
  const { weights, useful, qMin, qMax, models } = p;
  const n = models.length;
  const costs: number[] = new Array(n);
  const latencies: number[] = new Array(n);
  const logCost: number[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const model = models[i]!;
    costs[i] = maxCostOf(model, input.inputTokens, input.outputTokens);
    latencies[i] = measuredLatencyMs(model) ?? latencyPriorMs(model, input.outputTokens);
    // Costs span three orders of magnitude: compared on a log scale, latency and quality linearly.
    logCost[i] = Math.log(costs[i]! + 1e-9);
  }
  const [cMin, cMax] = span(logCost);
  const [lMin, lMax] = span(latencies);
  // Meeting the quality bar first, by score; below it, by quality (the best fallback available).
  const meeting: Scored[] = [];
  const below: Scored[] = [];
  for (let i = 0; i < n; i++) {
    const score = weights.quality * norm(useful[i]!, qMin, qMax) + weights.cost * (1 - norm(logCost[i]!, cMin, cMax)) +
      weights.latency * (1 - norm(latencies[i]!, lMin, lMax));
    const quality = p.quality[i]!;
    const meetsQuality = quality >= p.requiredQuality;
    const row: Scored = {
      model: models[i]!, quality, expectedCost: costs[i]!, latencyMs: latencies[i]!,
      score: Math.round(score * p.health[i]! * 1000) / 1000, meetsQuality,
    };
    (meetsQuality ? meeting : below).push(row);
  }
  meeting.sort((a, b) => b.score - a.score);
  below.sort((a, b) => b.quality - a.quality);
  const ranked = [...diversify(meeting), ...diversify(below)];
  return { requiredQuality: p.requiredQuality, weights, qualityTask: p.qualityTask, ranked, equivalents: equivalentsOf(ranked) };
}

/** Scores the eligible models (already filtered by the caller's exclusions). */
export function scoreModels(
  models: readonly CatalogModel[],
  input: ScoreInput,
  measuredLatencyMs: (m: CatalogModel) => number | null = () => null,
  healthOf: (m: CatalogModel) => number = () => 1,
  qualityOf?: (m: CatalogModel, task: TaskKind) => number,
): Decision {
  return rankPrepared(prepareScoring(models, input, healthOf, qualityOf), input, measuredLatencyMs);
}

/** Keeps the order, except that each next attempt prefers a provider not tried yet: a provider
 * outage then costs one attempt, not several (issue 5 item 5). */
export function diversify<T extends { model: CatalogModel }>(ranked: T[]): T[] {
  // Each pass takes, in order, the first one left of every provider; then the next pass starts.
  const out: T[] = [];
  const taken = new Uint8Array(ranked.length);
  const used: string[] = [];
  while (out.length < ranked.length) {
    used.length = 0;
    for (let i = 0; i < ranked.length; i++) {
      const r = ranked[i]!;
      if (taken[i] === 1 || used.includes(r.model.provider)) continue;
      used.push(r.model.provider);
      taken[i] = 1;
      out.push(r);
    }
  }
  return out;
}
