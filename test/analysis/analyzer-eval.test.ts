// The analyzer against its labelled eval set (test/fixtures/analyzer-eval.json): prints accuracy
// overall, per task kind, for non-English prompts and on the held-out split, and fails below floors.
// Labels: task = what a router should treat the request as; language = the asker's language (the
// instruction's, not the pasted material's); liveData / personal absent = false.
// Entries marked `holdout` were written after the word rules were frozen; since issue 22 the whole
// set is also training data of the task classifier, so the task figures here are its fit (the honest
// ones are cross-validated and on the frozen holdout: test/analysis/task-holdout.test.ts).
import { describe, expect, test } from "bun:test";
import { analyzeRequest, KINDS, type Analysis } from "../../src/analysis/analyzer.ts";
import { boundMessageTokens } from "../../src/analysis/tokens.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import evalSet from "../fixtures/analyzer-eval.json";

interface Case {
  prompt: string;
  task: string;
  language: string;
  liveData?: boolean;
  personal?: boolean;
  tools?: boolean;
  image?: boolean;
  holdout?: boolean;
}

const cases: Case[] = evalSet;

/** Floors under the measured figures (task: 1.000 everywhere, the classifier's fit, for 0.963 overall
 * and 0.879 held out with the word rules alone; language 0.994), with room for retraining on more data. */
const FLOORS = { overall: 0.97, holdout: 0.95, nonEnglish: 0.95, perKind: 0.9, language: 0.97, liveData: 0.95, personal: 0.95 };

function request(c: Case): ChatRequest {
  const content = c.image
    ? [{ type: "text", text: c.prompt }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }]
    : c.prompt;
  const req: ChatRequest = { model: "gw-auto", messages: [{ role: "user", content }] };
  if (c.tools) req.tools = [{ type: "function", function: { name: "lookup", parameters: { type: "object", properties: {} } } }];
  return req;
}

const results: Array<{ c: Case; a: Analysis }> = cases.map((c) => {
  const req = request(c);
  return { c, a: analyzeRequest(req, { inputTokensBound: boundMessageTokens(req.messages) }) };
});

const ratio = (rows: typeof results, ok: (r: (typeof results)[number]) => boolean): number =>
  rows.length === 0 ? 1 : rows.filter(ok).length / rows.length;
const taskOk = (r: (typeof results)[number]): boolean => r.a.task === r.c.task;
const pct = (v: number): string => `${(v * 100).toFixed(1)}%`;

describe("analyzer eval set (issue 5: content analysis)", () => {
  test("the set is large, covers every kind and many languages", () => {
    expect(cases.length).toBeGreaterThanOrEqual(300);
    for (const kind of KINDS) expect(cases.filter((c) => c.task === kind).length).toBeGreaterThanOrEqual(15);
    const nonEnglish = cases.filter((c) => c.language !== "en");
    expect(nonEnglish.length).toBeGreaterThanOrEqual(Math.ceil(cases.length * 0.15));
    expect(new Set(nonEnglish.map((c) => c.language)).size).toBeGreaterThanOrEqual(8);
    for (const c of cases.filter((x) => x.task === "agent")) expect(c.tools).toBe(true);
    for (const c of cases.filter((x) => x.task === "vision")) expect(c.image).toBe(true);
  });

  test("accuracy meets the floors", () => {
    const overall = ratio(results, taskOk);
    const holdout = ratio(results.filter((r) => r.c.holdout), taskOk);
    const dev = ratio(results.filter((r) => !r.c.holdout), taskOk);
    const nonEnglish = ratio(results.filter((r) => r.c.language !== "en"), taskOk);
    // Agent and vision follow from the request's tools and images; the text decides the rest.
    const fromText = (r: (typeof results)[number]): boolean => !r.c.tools && !r.c.image;
    const textOnly = ratio(results.filter(fromText), taskOk);
    const holdoutText = ratio(results.filter((r) => r.c.holdout && fromText(r)), taskOk);
    const language = ratio(results, (r) => r.a.language === r.c.language);
    const nonEnglishLanguage = ratio(results.filter((r) => r.c.language !== "en"), (r) => r.a.language === r.c.language);
    const liveData = ratio(results, (r) => r.a.liveData === (r.c.liveData ?? false));
    const personal = ratio(results, (r) => r.a.personal === (r.c.personal ?? false));
    const perKind = KINDS.map((k) => [k, ratio(results.filter((r) => r.c.task === k), taskOk)] as const);

    const lines = [
      `analyzer eval: ${results.length} prompts (${results.filter((r) => r.c.holdout).length} held out)`,
      `  task overall ${pct(overall)}  dev ${pct(dev)}  holdout ${pct(holdout)}  non-English ${pct(nonEnglish)}`,
      `  task from text alone (no tools/images) ${pct(textOnly)}, holdout ${pct(holdoutText)}`,
      `  language ${pct(language)} (non-English ${pct(nonEnglishLanguage)})  liveData ${pct(liveData)}  personal ${pct(personal)}`,
      `  per kind: ${perKind.map(([k, v]) => `${k} ${pct(v)}`).join(", ")}`,
    ];
    const misses = results.filter((r) => !taskOk(r)).map((r) => `    ${r.c.task} -> ${r.a.task}/${r.a.subtype}: ${r.c.prompt.slice(0, 70).replaceAll("\n", " ")}`);
    console.log([...lines, "  task misses:", ...misses].join("\n"));

    expect(overall).toBeGreaterThanOrEqual(FLOORS.overall);
    expect(holdout).toBeGreaterThanOrEqual(FLOORS.holdout);
    expect(nonEnglish).toBeGreaterThanOrEqual(FLOORS.nonEnglish);
    for (const [, v] of perKind) expect(v).toBeGreaterThanOrEqual(FLOORS.perKind);
    expect(language).toBeGreaterThanOrEqual(FLOORS.language);
    expect(liveData).toBeGreaterThanOrEqual(FLOORS.liveData);
    expect(personal).toBeGreaterThanOrEqual(FLOORS.personal);
  });

  test("every analysis carries a subtype from its kind's vocabulary", async () => {
    const { SUBTYPES } = await import("../../src/analysis/analyzer.ts");
    for (const { a } of results) expect(SUBTYPES[a.task]).toContain(a.subtype);
  });
});
