// Calibrated routing (docs/routing.md "Calibration"), through the pipeline's analyze and route stages
// with every provider enabled: high-complexity requests reach a model of at least median quality for
// their kind, low ones a model below the median price; explicit profiles keep their bars.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { blendedPrice, evaluate, median, openRouter, routeEntry, type Router } from "../../bench/routing-eval/evaluate.ts";
import { quantile } from "../../src/routing/score.ts";
import { loadCorpus, type CorpusEntry } from "../helpers/task-corpus.ts";

let router: Router;
beforeAll(() => {
  router = openRouter();
});
afterAll(() => router.close());

const entry = (prompt: string, task: CorpusEntry["task"], complexity: CorpusEntry["complexity"], more: Partial<CorpusEntry> = {}): CorpusEntry =>
  ({ id: `${task}-${complexity}: ${prompt.slice(0, 24)}`, prompt, task, language: "en", complexity, ...more });

const HIGH: CorpusEntry[] = [
  entry("Prove that there are infinitely many primes of the form 4k+3, and explain why the same argument fails for 4k+1.", "math", "high"),
  entry("Our Go service deadlocks under load: goroutine A takes mu1 then mu2, goroutine B takes mu2 then mu1 only when the cache expires. Explain the interleaving and restructure the locking without losing the cache refresh.", "coding", "high"),
  entry("We have 14 months of runway, 3% monthly churn and a competitor launched a free tier. Weigh cutting prices 30%, moving upmarket or raising a bridge round, with the risks of each and what you'd measure first.", "reasoning", "high"),
  entry("Give an executive summary of the board report below: decisions, open risks, owners, and what was deferred.", "summarization", "high", { pad: { tokens: 12_000, kind: "prose", at: "after" } }),
  entry("Here is a screenshot of our latency dashboard during the outage. When did the problem start and which service caused it?", "vision", "high", { image: true }),
];
const LOW: CorpusEntry[] = [
  entry("hi!", "chat", "low"),
  entry("What is the capital of Peru?", "qa", "low"),
  entry("Translate 'thank you very much' into German.", "translation", "low"),
  entry("Is this review positive or negative? 'Great phone, battery lasts two days.'", "classification", "low"),
  entry("What is 17 + 25?", "math", "low"),
];

describe("labelled examples", () => {
  test("high-complexity requests reach at least the median quality for their kind among the models able to serve them", () => {
    for (const e of HIGH) {
      const r = routeEntry(router, e);
      const q = (m: (typeof r.able)[number]) => m.quality[e.task];
      expect({ id: e.id, strong: q(r.chosen) >= median(r.able.map(q)) }).toEqual({ id: e.id, strong: true });
      expect(r.complexity).not.toBe("low");
    }
  });

  test("low-complexity requests go to a model below the median blended price of those able to serve them", () => {
    for (const e of LOW) {
      const r = routeEntry(router, e);
      expect({ id: e.id, cheap: blendedPrice(r.chosen) < median(r.able.map(blendedPrice)) }).toEqual({ id: e.id, cheap: true });
    }
  });
});

describe("the training corpus (test/fixtures/task-corpus/train-*.json)", () => {
  test("at least 90% of labelled high reach median quality, 95% of labelled low stay below the median price; no trace above max_cost", () => {
    const report = evaluate(loadCorpus("train-"), router);
    expect(report.n).toBeGreaterThan(300);
    expect(report.high.strong / report.high.n).toBeGreaterThanOrEqual(0.9);
    expect(report.low.cheap / report.low.n).toBeGreaterThanOrEqual(0.95);
    expect(report.capped.over).toBe(0);
    expect(report.capped.runs - report.capped.refused).toBeGreaterThan(0);
    expect(report.shares[0]![1]).toBeLessThan(0.5);
  });
});

describe("the quality bar", () => {
  const medium = entry("Write a Python function that parses ISO 8601 dates with time zones and returns UTC datetimes; handle invalid input.", "coding", "medium");
  const qualitiesOf = (state: ReturnType<Router["state"]>) =>
    state.candidates.filter((c) => c.rank !== null && c.excluded === undefined).map((c) => c.quality!);

  test("gw-auto asks a medium request for the median of the eligible models' quality (never below its floor), a high one for the upper quartile", () => {
    const m = router.state(medium, "bar-medium");
    expect(m.analysis!.complexity).toBe("medium");
    expect(m.requiredQuality).toBe(Math.max(0.85, Math.round(quantile(qualitiesOf(m), 0.5) * 1000) / 1000));
    const h = router.state(HIGH[3]!, "bar-high");
    expect(h.analysis!.complexity).toBe("high");
    expect(h.requiredQuality).toBe(Math.max(0.82, Math.round(quantile(qualitiesOf(h), 0.75) * 1000) / 1000));
    expect(router.state(LOW[0]!, "bar-low").requiredQuality).toBe(0.6);
  });

  test("explicit profiles, modes and min_quality keep the bars docs/routing.md gives", () => {
    const bars: Array<[string, object, number]> = [
      ["gw-fast", {}, 0.55], ["gw-balanced", {}, 0.75], ["gw-quality", {}, 0.85], ["gw-max", {}, 0.9],
      ["gw-code", {}, 0.85], ["gw-reasoning", {}, 0.85], ["gw-auto", { routing: { mode: "economy" } }, 0.6],
      ["gw-auto", { routing: { mode: "max" } }, 0.9], ["gw-auto", { routing: { min_quality: 0.7 } }, 0.7],
      ["gw-quality", { routing: { min_quality: 0.5 } }, 0.5],
    ];
    for (const [profile, options, bar] of bars) {
      expect({ profile, options, bar: router.state(medium, `bar-${profile}`, options, profile).requiredQuality }).toEqual({ profile, options, bar });
    }
  });
});
