// The metrics object of GET /metrics (docs/api.md "Metrics"), computed from the request log's
// rollups (store/repos/metrics.ts), never from its rows. Each field's definition:
// docs/observability.md "GET /v1/metrics".
import { percentile } from "../lib/histogram.ts";
import { METRICS_PERIODS, type MetricsPeriod } from "../schema/metrics.ts";
import type { RollupTotals } from "../store/metrics-rollup.ts";
import { MINUTE_MS, type MetricsRepo } from "../store/repos/metrics.ts";

export interface ProjectMetrics {
  object: "metrics";
  period: MetricsPeriod;
  requests: number;
  availability: number;
  latency: { p50: number | null; p95: number | null; p99: number | null };
  ttft: { p50: number | null; p95: number | null };
  error_rate: number;
  fallback_rate: number;
  errors: Record<string, number>;
  cost: number;
  saved: number;
  cost_per_request: number;
}

/** [from, to): minute-aligned, `to` the end of the current minute. */
export function metricsWindow(period: MetricsPeriod, now: number): { from: number; to: number } {
  const to = now - (now % MINUTE_MS) + MINUTE_MS;
  return { from: to - METRICS_PERIODS[period], to };
}

/** Percentages to 3 decimals (99.999 stays distinct from 100). */
const percent = (part: number, whole: number): number => Math.round((part / whole) * 100_000) / 1000;
/** USD on gw.cost's basis (meter.ts rounds to 1e-10). */
const usd = (x: number): number => Math.round(x * 1e10) / 1e10;

export function metricsObject(period: MetricsPeriod, t: RollupTotals): ProjectMetrics {
  const accountable = t.requests - t.callerFailed;
  const errors: Record<string, number> = {};
  for (const category of Object.keys(t.errors).sort()) errors[category] = t.errors[category]!;
  return {
    object: "metrics",
    period,
    requests: t.requests,
    availability: accountable === 0 ? 100 : percent(accountable - (t.failed - t.callerFailed), accountable),
    latency: { p50: percentile(t.latency, 50), p95: percentile(t.latency, 95), p99: percentile(t.latency, 99) },
    ttft: { p50: percentile(t.ttft, 50), p95: percentile(t.ttft, 95) },
    error_rate: t.requests === 0 ? 0 : percent(t.failed, t.requests),
    fallback_rate: t.requests === 0 ? 0 : percent(t.fallbacks, t.requests),
    errors,
    cost: usd(t.cost),
    saved: usd(t.saved),
    cost_per_request: t.requests === 0 ? 0 : usd(t.cost / t.requests),
  };
}

export function projectMetrics(repo: MetricsRepo, projectId: string, period: MetricsPeriod, now: number): ProjectMetrics {
  const { from, to } = metricsWindow(period, now);
  return metricsObject(period, repo.totals(projectId, from, to));
}
