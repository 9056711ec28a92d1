// GET /metrics (docs/api.md "Metrics", "Limits"): the `period` query, checked so an
// unknown value answers 400 naming `period`, and the response's shape (the contract tests check
// every answer against it).
import { Type, type Static } from "@sinclair/typebox";
import { invalidRequest } from "../errors/gw-error.ts";

/** The windows GET /metrics reports over, in ms. */
export const METRICS_PERIODS = { "1h": 3_600_000, "24h": 86_400_000, "7d": 7 * 86_400_000, "30d": 30 * 86_400_000 } as const;
export type MetricsPeriod = keyof typeof METRICS_PERIODS;

export const DEFAULT_METRICS_PERIOD: MetricsPeriod = "24h";

const isPeriod = (value: string): value is MetricsPeriod => Object.hasOwn(METRICS_PERIODS, value);

export function parseMetricsQuery(query: Record<string, string | undefined>): MetricsPeriod {
  const period = query.period;
  if (period === undefined) return DEFAULT_METRICS_PERIOD;
  if (!isPeriod(period)) throw invalidRequest(`'period' must be one of ${Object.keys(METRICS_PERIODS).join(", ")}.`, "period");
  return period;
}

const Ms = Type.Union([Type.Number({ minimum: 0 }), Type.Null()]);
const Percent = Type.Number({ minimum: 0, maximum: 100 });

export const Metrics = Type.Object({
  object: Type.Literal("metrics"),
  period: Type.Union(Object.keys(METRICS_PERIODS).map((p) => Type.Literal(p))),
  requests: Type.Integer({ minimum: 0 }),
  availability: Percent,
  latency: Type.Object({ p50: Ms, p95: Ms, p99: Ms }, { additionalProperties: false }),
  ttft: Type.Object({ p50: Ms, p95: Ms }, { additionalProperties: false }),
  error_rate: Percent,
  fallback_rate: Percent,
  errors: Type.Record(Type.String(), Type.Integer({ minimum: 1 })),
  cost: Type.Number({ minimum: 0 }),
  saved: Type.Number(),
  cost_per_request: Type.Number({ minimum: 0 }),
}, { additionalProperties: false });
export type Metrics = Static<typeof Metrics>;
