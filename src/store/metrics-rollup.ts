// What one metrics rollup row sums (migration 005), and how request-log rows and stored rollup
// rows add into such totals. Plain functions: the repo (repos/metrics.ts) owns the SQL.
import { ERROR_CODES } from "../errors/codes.ts";
import { addEncoded, bucketOf, emptyHistogram, encodeHistogram } from "../lib/histogram.ts";
import { COLUMNS, type SqlValue } from "./log-batch-codec.ts";

export interface RollupTotals {
  requests: number;
  /** Requests that ended in an error, and those of them that were the caller's fault. */
  failed: number;
  callerFailed: number;
  /** Requests answered by a fallback (fallbacks >= 1). */
  fallbacks: number;
  cacheHits: number;
  inputTokens: number;
  outputTokens: number;
  cost: number;
  saved: number;
  errors: Record<string, number>;
  /** Dense histograms (src/lib/histogram.ts). */
  latency: Uint32Array;
  ttft: Uint32Array;
}

/** Caller-side categories do not count against availability (docs/api.md "Errors"); their latencies
 * (a rejected request answers in a millisecond) are left out of the latency percentiles too. */
export const CALLER_SIDE_CATEGORIES: ReadonlySet<string> = new Set(
  Object.values(ERROR_CODES).filter((c) => c.callerSide).map((c) => c.category),
);

export const emptyTotals = (): RollupTotals => ({
  requests: 0, failed: 0, callerFailed: 0, fallbacks: 0, cacheHits: 0, inputTokens: 0, outputTokens: 0,
  cost: 0, saved: 0, errors: {}, latency: emptyHistogram(), ttft: emptyHistogram(),
});

const at = (name: (typeof COLUMNS)[number]): number => COLUMNS.indexOf(name);
/** Positions of the columns a rollup reads in a row's insert values. */
export const COL = {
  project: at("project_id"), createdAt: at("created_at"), cost: at("cost"), saved: at("saved"), cache: at("cache"),
  category: at("error_category"), latency: at("latency_ms"), ttft: at("ttft_ms"), fallbacks: at("fallbacks"),
  input: at("input_tokens"), output: at("output_tokens"),
};

/** Adds one request-log row, as the values of its insert (COLUMNS order), to `t`. */
export function addRow(t: RollupTotals, v: readonly SqlValue[]): void {
  const category = v[COL.category] as string | null;
  const callerSide = category !== null && CALLER_SIDE_CATEGORIES.has(category);
  t.requests++;
  if (category !== null) {
    t.failed++;
    if (callerSide) t.callerFailed++;
    t.errors[category] = (t.errors[category] ?? 0) + 1;
  }
  if ((v[COL.fallbacks] as number) > 0) t.fallbacks++;
  if (v[COL.cache] !== null) t.cacheHits++;
  t.inputTokens += v[COL.input] as number;
  t.outputTokens += v[COL.output] as number;
  t.cost += v[COL.cost] as number;
  t.saved += v[COL.saved] as number;
  if (!callerSide) {
    const b = bucketOf(v[COL.latency] as number);
    t.latency[b] = t.latency[b]! + 1;
  }
  const ttft = v[COL.ttft] as number | null;
  if (ttft !== null) {
    const b = bucketOf(ttft);
    t.ttft[b] = t.ttft[b]! + 1;
  }
}

/** A rollup row as stored, without its key. */
export interface StoredRollup extends CounterColumns {
  cost: number; saved: number; errors: string;
  latency: Uint8Array; ttft: Uint8Array;
}

/** Its columns, in the order of `storedValues`. */
export const STORED_COLUMNS = "requests, failed, caller_failed, fallbacks, cache_hits, input_tokens, output_tokens, cost, saved, errors, latency, ttft";

/** The additive counters of a stored minute, named alike in SQLite and PostgreSQL. */
export interface CounterColumns {
  requests: number; failed: number; caller_failed: number; fallbacks: number; cache_hits: number;
  input_tokens: number; output_tokens: number;
}

export function addCounterColumns(t: RollupTotals, r: CounterColumns): void {
  t.requests += r.requests;
  t.failed += r.failed;
  t.callerFailed += r.caller_failed;
  t.fallbacks += r.fallbacks;
  t.cacheHits += r.cache_hits;
  t.inputTokens += r.input_tokens;
  t.outputTokens += r.output_tokens;
}

export function addStored(t: RollupTotals, r: StoredRollup): void {
  addCounterColumns(t, r);
  t.cost += r.cost;
  t.saved += r.saved;
  if (r.errors !== "{}") {
    for (const [category, n] of Object.entries(JSON.parse(r.errors) as Record<string, number>)) t.errors[category] = (t.errors[category] ?? 0) + n;
  }
  addEncoded(t.latency, r.latency);
  addEncoded(t.ttft, r.ttft);
}

/** Adds totals `from` into `into` (histograms bucket by bucket). */
export function addTotals(into: RollupTotals, from: RollupTotals): void {
  into.requests += from.requests;
  into.failed += from.failed;
  into.callerFailed += from.callerFailed;
  into.fallbacks += from.fallbacks;
  into.cacheHits += from.cacheHits;
  into.inputTokens += from.inputTokens;
  into.outputTokens += from.outputTokens;
  into.cost += from.cost;
  into.saved += from.saved;
  for (const [category, n] of Object.entries(from.errors)) into.errors[category] = (into.errors[category] ?? 0) + n;
  for (let i = 0; i < from.latency.length; i++) into.latency[i] = into.latency[i]! + from.latency[i]!;
  for (let i = 0; i < from.ttft.length; i++) into.ttft[i] = into.ttft[i]! + from.ttft[i]!;
}

export type StoredValue = string | number | Uint8Array;

export const storedValues = (t: RollupTotals): StoredValue[] => [
  t.requests, t.failed, t.callerFailed, t.fallbacks, t.cacheHits, t.inputTokens, t.outputTokens, t.cost, t.saved,
  JSON.stringify(t.errors), encodeHistogram(t.latency), encodeHistogram(t.ttft),
];
