// Figures of the optimisation bench per mode and content type, and the markdown tables that print them.
import { CASE_TYPES } from "../../test/fixtures/optimization/corpus.ts";
import { fmt, percentiles, table } from "../lib/stats.ts";
import type { CaseResult } from "./evaluate.ts";

export interface Figures {
  cases: number;
  tokensBefore: number;
  tokensAfter: number;
  /** 1 - after / before over the group's tokens, in %. */
  reduction: number;
  /** The mean of the cases' own reductions, in %. */
  meanReduction: number;
  /** The reduction by the engine's own counts (trace.optimization), in %. */
  traceReduction: number;
  /** Cases with every gold fact present, and gold facts present, in %. */
  casesPreserved: number;
  goldKept: number;
  entityRecall: number;
  jsonValid: number;
  jsonEqual: number;
  codeEqual: number;
  /** The engine's time per request, ms. */
  p50: number;
  p95: number;
  /** Cases whose trace's final count is not the original minus the applied stages' savings. */
  traceMismatches: number;
}

const pct = (a: number, b: number): number => (b === 0 ? 100 : (100 * a) / b);
const sum = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0);
const ratioOf = (rs: readonly CaseResult[], pick: (r: CaseResult) => [number, number]): number =>
  pct(sum(rs.map((r) => pick(r)[0])), sum(rs.map((r) => pick(r)[1])));

export function figuresOf(rs: readonly CaseResult[]): Figures {
  const before = sum(rs.map((r) => r.before));
  const after = sum(rs.map((r) => r.after));
  const ms = percentiles(rs.flatMap((r) => r.ms));
  return {
    cases: rs.length, tokensBefore: before, tokensAfter: after, reduction: 100 * (1 - after / before),
    meanReduction: sum(rs.map((r) => 100 * (1 - r.after / r.before))) / Math.max(1, rs.length),
    traceReduction: 100 * (1 - sum(rs.map((r) => r.trace.final_tokens)) / Math.max(1, sum(rs.map((r) => r.trace.original_tokens)))),
    casesPreserved: pct(rs.filter((r) => r.checks.gold[0] === r.checks.gold[1]).length, rs.length),
    goldKept: ratioOf(rs, (r) => r.checks.gold), entityRecall: ratioOf(rs, (r) => r.checks.entities),
    jsonValid: ratioOf(rs, (r) => r.checks.jsonValid), jsonEqual: ratioOf(rs, (r) => r.checks.jsonEqual), codeEqual: ratioOf(rs, (r) => r.checks.code),
    p50: ms.p50, p95: ms.p95, traceMismatches: rs.filter((r) => !r.traceAdds).length,
  };
}

/** Figures per content type, then for the whole corpus ("all"). */
export function figuresByType(rs: readonly CaseResult[]): Record<string, Figures> {
  const out: Record<string, Figures> = {};
  for (const t of CASE_TYPES) {
    const group = rs.filter((r) => r.type === t);
    if (group.length > 0) out[t] = figuresOf(group);
  }
  out["all"] = figuresOf(rs);
  return out;
}

export function typeTable(label: string, byType: Record<string, Figures>): string[] {
  const rows = Object.entries(byType).map(([t, f]) => [
    t, String(f.cases), `${f.tokensBefore} → ${f.tokensAfter}`, fmt(f.reduction, 1), fmt(f.meanReduction, 1), fmt(f.traceReduction, 1), fmt(f.casesPreserved, 1), fmt(f.goldKept, 1),
    fmt(f.entityRecall, 1), fmt(f.jsonValid, 1), fmt(f.jsonEqual, 1), fmt(f.codeEqual, 1), fmt(f.p50, 3), fmt(f.p95, 3),
  ]);
  return [`### ${label}`, "", ...table(
    ["type", "cases", "tokens", "reduction %", "mean case %", "engine count %", "cases all gold %", "gold kept %", "entity recall %", "JSON valid %", "JSON equal %", "code equal %", "p50 ms", "p95 ms"], rows), ""];
}

/** Per stage: how often it applied or was reverted (and why), the tokens it saved, its time. */
export function stageTable(label: string, rs: readonly CaseResult[]): string[] {
  const names = [...new Set(rs.flatMap((r) => r.trace.stages.map((s) => s.name)))];
  const rows = names.map((name) => {
    const recs = rs.flatMap((r) => r.trace.stages.filter((s) => s.name === name));
    const why = (reason: string): number => recs.filter((s) => s.reverted_reason === reason).length;
    const saved = sum(recs.filter((s) => s.applied).map((s) => s.before_tokens - s.after_tokens));
    const ms = percentiles(recs.map((s) => s.ms));
    return [name, String(recs.length), String(recs.filter((s) => s.applied).length), String(recs.filter((s) => !s.applied && !s.reverted_reason).length), String(why("no_gain")), String(why("preserve")), String(why("error")), String(saved), fmt(ms.p50, 3), fmt(ms.p95, 3)];
  });
  return [`### ${label}: stages`, "", ...table(["stage", "runs", "applied", "nothing to do", "no_gain", "preserve", "error", "tokens saved", "p50 ms", "p95 ms"], rows), ""];
}

/** Cases that lost a gold fact, an entity, JSON or code: what the tables summarise, named. */
export function lossLines(mode: string, rs: readonly CaseResult[]): string[] {
  const out: string[] = [];
  for (const r of rs) {
    const lost = (["gold", "entities", "jsonValid", "jsonEqual", "code"] as const).filter((k) => r.checks[k][0] < r.checks[k][1]);
    if (lost.length > 0) out.push(`- ${mode} ${r.id}: ${lost.map((k) => `${k} ${r.checks[k][0]}/${r.checks[k][1]}`).join(", ")}; applied: ${r.trace.stages.filter((s) => s.applied).map((s) => s.name).join(", ") || "none"}`);
  }
  return out;
}
