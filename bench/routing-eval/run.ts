// The routing evaluation over the task corpus (docs/routing.md "Calibration"):
//   bun run bench/routing-eval/run.ts [--set train|holdout] [--misses]
// Prints the complexity table, the high and low shares, the busiest models and the max_cost check.
import { loadCorpus } from "../../test/helpers/task-corpus.ts";
import { evaluate, openRouter, type Report } from "./evaluate.ts";

const args = process.argv.slice(2);
const set = args[args.indexOf("--set") + 1] === "holdout" && args.includes("--set") ? "holdout" : "train";
const entries = loadCorpus(set === "holdout" ? "holdout-" : "train-");
const router = openRouter();
const report = evaluate(entries, router);
router.close();
print(report);

function pct(part: number, whole: number): string {
  return `${((100 * part) / Math.max(1, whole)).toFixed(1)}% (${part}/${whole})`;
}

function print(r: Report): void {
  console.log(`routing evaluation, ${set} set: ${r.n} requests, gw-auto, every catalog provider enabled`);
  console.log(`task agreement with the label: ${(100 * r.taskAgreement).toFixed(1)}%\n`);
  console.log("complexity, label (rows) x detected (columns)");
  console.log("label    low  medium  high  agree");
  for (const l of ["low", "medium", "high"] as const) {
    const row = r.confusion[l];
    const n = row.low + row.medium + row.high;
    console.log(`${l.padEnd(7)}${String(row.low).padStart(5)}${String(row.medium).padStart(8)}${String(row.high).padStart(6)}  ${pct(row[l], n)}`);
  }
  const agree = r.confusion.low.low + r.confusion.medium.medium + r.confusion.high.high;
  console.log(`overall agreement ${pct(agree, r.n)}\n`);
  console.log(`labelled high to a model of at least median quality for the kind: ${pct(r.high.strong, r.high.n)}`);
  console.log(`labelled low to a model below the median blended price:           ${pct(r.low.cheap, r.low.n)}`);
  console.log("(medians over the models able to serve each request; blended price = (3 x input + output) / 4 per million tokens)\n");
  console.log(`busiest models: ${r.shares.slice(0, 5).map(([id, s]) => `${id} ${(100 * s).toFixed(1)}%`).join(", ")}`);
  console.log(`models chosen at least once: ${r.shares.length}`);
  console.log(`max_cost check: ${r.capped.runs} capped runs, ${r.capped.refused} refused, ${r.capped.over} with trace.expected.cost above max_cost`);
  if (args.includes("--misses")) {
    console.log("\nmisses (label, detected task/complexity, chosen):");
    for (const row of r.rows) {
      const miss = (row.entry.complexity === "high" && !row.strong) || (row.entry.complexity === "low" && !row.cheap);
      if (miss) console.log(`  ${row.entry.id} ${row.entry.task}/${row.entry.complexity} -> ${row.task}/${row.complexity} ${row.chosen.id}`);
    }
  }
}
