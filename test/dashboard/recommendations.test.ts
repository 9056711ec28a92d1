// The recommendation rule at its edges (docs/dashboard.md "Recommendations"): 29 vs 30 ratings, 19%
// vs 20% cheaper, the lower bound just below and just above the current mean - 0.2; the saving's
// arithmetic; the semantic cache advice's thresholds.
import { describe, expect, test } from "bun:test";
import { cheaperModels, lowerBound, RULE, semanticCacheAdvice, type TaskModelUsage } from "../../src/monitoring/recommendations.ts";
import type { RatingStats } from "../../src/store/repos/view-reads.ts";

/** `count` ratings: `fours` of them 4, the rest 5 (or all `value`). */
function stats(model: string, count: number, fours: number, task = "chat"): RatingStats {
  const fives = count - fours;
  return { model, task, count, sum: 4 * fours + 5 * fives, sumSquares: 16 * fours + 25 * fives };
}

const usage = (model: string, requests: number, costPerRequest: number, task = "chat"): TaskModelUsage =>
  ({ task, model, requests, cacheHits: 0, cost: costPerRequest * requests });

// Current model: "big", 1000 requests at $0.01, mean rating 4.5 (10 ratings).
const CURRENT = [usage("big", 1000, 0.01), usage("small", 100, 0.008)];
const currentRatings = { model: "big", task: "chat", count: 10, sum: 45, sumSquares: 5 * 16 + 5 * 25 };

describe("cheaper_model", () => {
  test("30 ratings recommend, 29 do not", () => {
    const all5 = (n: number): RatingStats => ({ model: "small", task: "chat", count: n, sum: 5 * n, sumSquares: 25 * n });
    expect(cheaperModels(CURRENT, [currentRatings, all5(29)])).toEqual([]);
    const [r] = cheaperModels(CURRENT, [currentRatings, all5(30)]);
    expect(r).toMatchObject({ kind: "cheaper_model", task: "chat", current_model: "big", candidate_model: "small", ratings: 30, current_mean: 4.5, candidate_mean: 5 });
    // (0.01 - 0.008) x 1100 requests of the task.
    expect(r!.monthly_saving_usd).toBeCloseTo(2.2, 9);
  });

  test("20% cheaper recommends, 19% does not", () => {
    const ratings = [currentRatings, { model: "small", task: "chat", count: 40, sum: 200, sumSquares: 1000 }];
    expect(cheaperModels([usage("big", 1000, 0.01), usage("small", 100, 0.0081)], ratings)).toEqual([]);
    expect(cheaperModels([usage("big", 1000, 0.01), usage("small", 100, 0.008)], ratings)).toHaveLength(1);
  });

  test("a lower bound just above current mean - 0.2 recommends, just below does not", () => {
    // Current mean 4.5: the bound must be >= 4.3. With n ratings of 4 and 5, find counts on each side.
    const candidates = Array.from({ length: 60 }, (_, fours) => stats("small", 60, fours));
    const above = candidates.filter((s) => lowerBound(s) >= 4.3).at(-1)!;
    const below = candidates.find((s) => lowerBound(s) < 4.3)!;
    expect(lowerBound(above) - 4.3).toBeLessThan(0.05);
    expect(4.3 - lowerBound(below)).toBeLessThan(0.05);
    expect(cheaperModels(CURRENT, [currentRatings, above])).toHaveLength(1);
    expect(cheaperModels(CURRENT, [currentRatings, below])).toEqual([]);
  });

  test("the bound is mean - 1.96 sd / sqrt(n) with the sample sd", () => {
    const s = stats("m", 30, 15);
    const sd = Math.sqrt((15 * 0.25 + 15 * 0.25) / 29);
    expect(lowerBound(s)).toBeCloseTo(4.5 - (RULE.z * sd) / Math.sqrt(30), 12);
  });

  test("no current ratings, or a task without a kind: no recommendation; the best saving per task wins", () => {
    const five = (model: string): RatingStats => ({ model, task: "chat", count: 30, sum: 150, sumSquares: 750 });
    expect(cheaperModels(CURRENT, [five("small")])).toEqual([]);
    expect(cheaperModels([usage("big", 1000, 0.01, ""), usage("small", 10, 0.001, "")], [])).toEqual([]);
    const pick = cheaperModels([...CURRENT, usage("tiny", 50, 0.002)], [currentRatings, five("small"), five("tiny")]);
    expect(pick.map((r) => r.candidate_model)).toEqual(["tiny"]);
  });
});

describe("enable_semantic_cache", () => {
  test("recommended at 10% exact repeats over 100 requests with the semantic cache off, not below or when on", () => {
    expect(semanticCacheAdvice({ cacheOn: true, semanticOn: false }, { requests: 100, exactHits: 10, cost: 4 })).toEqual({
      kind: "enable_semantic_cache", exact_repeat_share: 0.1, requests_30d: 100, estimated_monthly_saving_usd: 0.2,
    });
    expect(semanticCacheAdvice({ cacheOn: true, semanticOn: false }, { requests: 100, exactHits: 9, cost: 4 })).toBeNull();
    expect(semanticCacheAdvice({ cacheOn: true, semanticOn: false }, { requests: 99, exactHits: 50, cost: 4 })).toBeNull();
    expect(semanticCacheAdvice({ cacheOn: true, semanticOn: true }, { requests: 100, exactHits: 50, cost: 4 })).toBeNull();
    expect(semanticCacheAdvice({ cacheOn: false, semanticOn: false }, { requests: 100, exactHits: 50, cost: 4 })).toBeNull();
  });
});
