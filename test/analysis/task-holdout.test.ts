// Task detection on the frozen holdout (test/fixtures/task-corpus/holdout-*.json; docs/routing.md
// "Task detection"): written by an author who saw neither the training files nor the classifier, read
// only after the model was frozen. Each request goes through the real analyzer; floors sit a few points
// under the figures measured once at the freeze, so retraining may not quietly make them worse.
import { describe, expect, test } from "bun:test";
import { analyzeRequest } from "../../src/analysis/analyzer.ts";
import { KINDS } from "../../src/analysis/kinds.ts";
import { boundMessageTokens } from "../../src/analysis/tokens.ts";
import { figures, formatFigures, type Row } from "../../bench/task-eval/report.ts";
import { corpusRequest, loadCorpus } from "../helpers/task-corpus.ts";

const entries = loadCorpus("holdout-");
const rows: Row[] = entries.map((e) => {
  const req = corpusRequest(e);
  return { e, got: analyzeRequest(req, { inputTokensBound: boundMessageTokens(req.messages) }).task };
});

/** Measured once after the freeze (commit "freeze"; 500 entries): overall 0.862, English 0.910,
 * non-English 0.807, lowest kinds chat 0.702 and qa 0.774 (the word rules: 0.750, 0.801, 0.691,
 * lowest classification 0.476). Floors a few points under; the target (0.90 overall, no
 * kind below 0.80, non-English within 3 points of English) is not reached yet. */
const FLOORS = { overall: 0.83, english: 0.88, nonEnglish: 0.77, perKind: 0.65 };

describe("task detection on the frozen holdout (issue 22)", () => {
  test("the holdout covers every kind, and languages beside English", () => {
    expect(entries.length).toBeGreaterThanOrEqual(300);
    for (const kind of KINDS) expect(entries.filter((e) => e.task === kind).length).toBeGreaterThanOrEqual(10);
    expect(new Set(entries.map((e) => e.language)).size).toBeGreaterThanOrEqual(8);
  });

  test("accuracy overall, in English and not, and per kind meets the floors", () => {
    const f = figures(rows);
    console.log(formatFigures("frozen holdout, analyzer", rows));
    expect(f.overall).toBeGreaterThanOrEqual(FLOORS.overall);
    expect(f.english).toBeGreaterThanOrEqual(FLOORS.english);
    expect(f.nonEnglish).toBeGreaterThanOrEqual(FLOORS.nonEnglish);
    for (const [kind, share] of f.perKind) expect(`${kind} ${share >= FLOORS.perKind}`).toBe(`${kind} true`);
  });
});
