// A rule's metric over its window, from rollup totals, on the definitions of GET /metrics
// (docs/monitoring.md "Alert rules"): availability leaves caller-side errors out, percentiles come
// from the shared histogram, percentages are to 3 decimals.
import { percentile } from "../../lib/histogram.ts";
import type { RollupTotals } from "../../store/metrics-rollup.ts";
import type { AlertMetric } from "./rule.ts";

/** Spend against the budget that applies (daily or monthly); the evaluator reads it from billing. */
export interface BudgetUse {
  spent: number;
  limit: number;
}

/** Same rounding as the metrics object: 99.999 stays distinct from 100. */
const percent = (part: number, whole: number): number => Math.round((part / whole) * 100_000) / 1000;
const usd = (x: number): number => Math.round(x * 1e10) / 1e10;

/** The value, or null when there is nothing to measure: no requests in the window (a rate or
 * percentile of nothing), no latencies recorded, no budget set. `requests` and `cost` are counts,
 * 0 over an empty window, so `requests lt 1` can alert on traffic stopping. */
export function metricValue(metric: AlertMetric, t: RollupTotals, budget: BudgetUse | null = null): number | null {
  switch (metric) {
    case "requests":
      return t.requests;
    case "cost":
      return usd(t.cost);
    case "budget_used_pct":
      return budget && budget.limit > 0 ? percent(budget.spent, budget.limit) : null;
  }
  if (t.requests === 0) return null;
  switch (metric) {
    case "error_rate":
      return percent(t.failed, t.requests);
    case "availability": {
      const accountable = t.requests - t.callerFailed;
      return accountable === 0 ? 100 : percent(accountable - (t.failed - t.callerFailed), accountable);
    }
    case "latency_p95":
      return percentile(t.latency, 95);
    case "latency_p99":
      return percentile(t.latency, 99);
    case "ttft_p95":
      return percentile(t.ttft, 95);
    case "fallback_rate":
      return percent(t.fallbacks, t.requests);
    case "rate_limited_rate":
      return percent(t.errors.RATE_LIMIT ?? 0, t.requests);
    case "cache_hit_rate":
      return percent(t.cacheHits, t.requests);
  }
}
