// Task detection on the labelled corpus (docs/routing.md "Task detection"): `bun bench/task-eval/run.ts
// [train|eval|dev|holdout] [--rules] [--misses N]`. train = test/fixtures/task-corpus/train-*.json, eval =
// test/fixtures/analyzer-eval.json, dev = both, holdout = the frozen holdout; --rules: the word rules alone.
import { analyzeRequest, windowText } from "../../src/analysis/analyzer.ts";
import type { TaskKind } from "../../src/analysis/kinds.ts";
import { scanOnce } from "../../src/analysis/scan.ts";
import { decideTask } from "../../src/analysis/task-rules.ts";
import { boundMessageTokens, messageText } from "../../src/analysis/tokens.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { corpusRequest, loadCorpus } from "../../test/helpers/task-corpus.ts";
import { evalSetEntries, formatFigures, type Row } from "./report.ts";

/** The word rules as the analyzer used them before the classifier: tools, then images, then the cues. */
export function rulesTask(req: ChatRequest): TaskKind {
  if (Array.isArray(req.tools) && req.tools.length > 0) return "agent";
  let last: ChatRequest["messages"][number] | undefined;
  for (const m of req.messages) if (m.role === "user") last = m;
  if (last && Array.isArray(last.content) && last.content.some((p) => p.type === "image_url")) return "vision";
  return decideTask(scanOnce(last ? windowText(messageText(last)) : "")).task;
}

export const analyzerTask = (req: ChatRequest): TaskKind => analyzeRequest(req, { inputTokensBound: boundMessageTokens(req.messages) }).task;

if (import.meta.main) {
  const args = process.argv.slice(2);
  const set = args.find((a) => !a.startsWith("--") && !/^\d+$/.test(a)) ?? "train";
  const rules = args.includes("--rules");
  const missesAt = args.indexOf("--misses");
  const misses = missesAt >= 0 ? Number(args[missesAt + 1] ?? 20) : 0;
  const entries = set === "eval" ? evalSetEntries() : set === "holdout" ? loadCorpus("holdout-") : set === "train" ? loadCorpus("train-")
    : set === "dev" ? [...loadCorpus("train-"), ...evalSetEntries()] : [];
  if (entries.length === 0) {
    console.error(`no entries for "${set}" (train, eval, dev or holdout)`);
    process.exit(2);
  }
  const detect = rules ? rulesTask : analyzerTask;
  const rows: Row[] = entries.map((e) => ({ e, got: detect(corpusRequest(e)) }));
  console.log(formatFigures(`${set}, ${rules ? "word rules" : "analyzer"}`, rows, misses));
}
