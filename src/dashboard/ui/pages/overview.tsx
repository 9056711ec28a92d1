// Overview (/): the project's numbers for 1h/24h/7d/30d as GET /v1/metrics gives them, the cache hit
// rate, and charts of requests and errors over time, p95 latency by model and cost by model.
import { useMemo } from "preact/hooks";
import { getJson } from "../api.ts";
import { Chart, errorColor, type ChartSeries } from "../components/chart.tsx";
import { useLoad } from "../components/load.tsx";
import { MetricCard, MetricGrid } from "../components/metric-card.tsx";
import { currentPeriod, PeriodPicker } from "../components/period-picker.tsx";
import { count, dollars, ms, pct, usd } from "../format.ts";
import { query } from "../router.ts";
import type { ModelSeries, Overview } from "../types.ts";
import "../styles/overview.css";

/** Lines and stacks past this many models become unreadable; the rest are summed as "other". */
const MAX_MODELS = 8;

export function OverviewPage() {
  const period = currentPeriod(query.value);
  const project = query.value.get("project");
  const res = useLoad(() => getJson<Overview>("/overview", { period, project }), `${project}|${period}`);
  const o = res.data;
  return (
    <>
      <div class="page-head">
        <h1>Overview</h1>
        <PeriodPicker value={period} />
      </div>
      {res.error ? <p role="alert" class="alert">{res.error}</p> : null}
      {res.loading && !o ? <p class="loading">Loading the overview…</p> : null}
      {o ? <OverviewBody o={o} /> : null}
    </>
  );
}

function OverviewBody({ o }: { o: Overview }) {
  const m = o.metrics;
  const c = o.cache;
  return (
    <>
      <MetricGrid label="Key numbers">
        <MetricCard label="Requests" metric="requests" text={String(m.requests)} value={m.requests} />
        <MetricCard label="Availability" metric="availability" text={pct(m.availability)} value={m.availability} unit="%">
          caller-side errors left out
        </MetricCard>
        <MetricCard label="Latency p50" metric="p50" text={ms(m.latency.p50)} value={m.latency.p50} unit="ms" />
        <MetricCard label="Latency p95" metric="p95" text={ms(m.latency.p95)} value={m.latency.p95} unit="ms" />
        <MetricCard label="Latency p99" metric="p99" text={ms(m.latency.p99)} value={m.latency.p99} unit="ms" />
        <MetricCard label="Time to first token p50" metric="ttft" text={ms(m.ttft.p50)} value={m.ttft.p50} unit="ms">
          {m.ttft.p95 === null ? "no streamed answers" : `p95 ${ms(m.ttft.p95)} ms`}
        </MetricCard>
        <MetricCard label="Error rate" metric="error_rate" text={pct(m.error_rate)} value={m.error_rate} unit="%" />
        <MetricCard label="Fallback rate" metric="fallback_rate" text={pct(m.fallback_rate)} value={m.fallback_rate} unit="%" />
        <MetricCard label="Cost" metric="cost" text={usd(m.cost)} value={m.cost} prefix="$">
          {dollars(m.cost_per_request)} per request
        </MetricCard>
        <MetricCard label="Saved" metric="saved" text={usd(m.saved)} value={m.saved} prefix="$" />
        <MetricCard label="Cache hit rate" metric="cache_hit_rate" text={pct(c.hit_rate)} value={c.hit_rate} unit="%">
          exact {pct(c.exact_rate)}% · semantic {pct(c.semantic_rate)}%
        </MetricCard>
        <MetricCard label="Tokens" text={count(o.tokens.input + o.tokens.output)} value={o.tokens.input + o.tokens.output}>
          {count(o.tokens.input)} in · {count(o.tokens.output)} out
        </MetricCard>
      </MetricGrid>
      <Charts o={o} />
      <div class="chart-grid">
        <ModelTable models={o.by_model} />
        <ErrorTable errors={m.errors} />
      </div>
    </>
  );
}

/** The models drawn one by one, the rest folded into "other models". */
function topModels(models: ModelSeries[]): { shown: ModelSeries[]; rest: ModelSeries[] } {
  const sorted = models.slice().sort((a, b) => b.requests - a.requests);
  return { shown: sorted.slice(0, MAX_MODELS), rest: sorted.slice(MAX_MODELS) };
}

/** A model's values aligned to the overview's buckets (a model may lack points where it had no traffic). */
function aligned(times: number[], m: ModelSeries, pick: (p: ModelSeries["points"][number]) => number | null): (number | null)[] {
  const at = new Map(m.points.map((p) => [p.t, pick(p)]));
  return times.map((t) => at.get(t) ?? null);
}

function Charts({ o }: { o: Overview }) {
  const empty = o.metrics.requests === 0;
  const charts = useMemo(() => {
    const times = o.series.points.map((p) => p.t);
    const categories = [...new Set(o.series.points.flatMap((p) => Object.keys(p.errors)))].sort();
    // Errors are a few percent of requests: on their own axis they stay readable.
    const requests: ChartSeries[] = [{ label: "Requests", values: o.series.points.map((p) => p.requests) }];
    const errors: ChartSeries[] = categories.map((cat, i) => ({ label: cat, color: errorColor(i), values: o.series.points.map((p) => p.errors[cat] ?? 0) }));
    const { shown, rest } = topModels(o.by_model);
    const latency: ChartSeries[] = shown.map((m) => ({ label: m.model, values: aligned(times, m, (p) => p.p95_latency_ms) }));
    const cost: ChartSeries[] = shown.map((m) => ({ label: m.model, values: aligned(times, m, (p) => p.cost).map((v) => v ?? 0) }));
    if (rest.length > 0) {
      const rows = rest.map((m) => aligned(times, m, (p) => p.cost));
      const other = times.map((_, j) => rows.reduce((sum, r) => sum + (r[j] ?? 0), 0));
      cost.push({ label: `${rest.length} other models`, values: other });
    }
    return { times, requests, errors: { label: "Errors", unit: "count" as const, series: errors }, latency, cost };
  }, [o]);
  const bucket = o.series.bucket_ms;
  return (
    <div class="chart-grid">
      <Chart title="Requests and errors by category" times={charts.times} bucketMs={bucket} series={charts.requests} right={charts.errors} unit="count" stacked empty={empty} />
      <Chart title="p95 latency by model" times={charts.times} bucketMs={bucket} series={charts.latency} unit="ms" empty={empty} />
      <Chart title="Cost by model" times={charts.times} bucketMs={bucket} series={charts.cost} unit="usd" stacked empty={empty} />
    </div>
  );
}

function ModelTable({ models }: { models: ModelSeries[] }) {
  if (models.length === 0) return null;
  const sorted = models.slice().sort((a, b) => b.cost - a.cost || b.requests - a.requests);
  return (
    <section class="panel">
      <h2 class="panel-title">By model</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col" class="num">Requests</th>
            <th scope="col" class="num">Cost</th>
            <th scope="col" class="num">p95 latency</th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((m) => (
            <tr key={m.model}>
              <td class="mono wrap">{m.model}</td>
              <td class="num">{count(m.requests)}</td>
              <td class="num">{dollars(m.cost)}</td>
              <td class="num">{m.p95_latency_ms === null ? "–" : `${ms(m.p95_latency_ms)} ms`}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** Failed requests per category, as GET /v1/metrics counts them (docs/api.md "Errors" lists the categories). */
function ErrorTable({ errors }: { errors: Record<string, number> }) {
  const rows = Object.entries(errors).sort((a, b) => b[1] - a[1]);
  if (rows.length === 0) return null;
  return (
    <section class="panel">
      <h2 class="panel-title">Errors by category</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Category</th>
            <th scope="col" class="num">Requests</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([category, n]) => (
            <tr key={category}>
              <td class="mono">{category}</td>
              <td class="num">{count(n)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
