// An alert rule (docs/monitoring.md "Alert rules"): its body schema, the defaults a create fills in,
// and durations ("0s", "2m", "1h30m") checked here so a bad one answers 400 naming its field.
import { Type, type Static } from "@sinclair/typebox";
import { invalidRequest } from "../../errors/gw-error.ts";
import { compileValidator } from "../../schema/validate.ts";

const lit = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));

export const ALERT_METRICS = [
  "error_rate", "availability", "latency_p95", "latency_p99", "ttft_p95", "fallback_rate",
  "rate_limited_rate", "cost", "cache_hit_rate", "requests", "budget_used_pct",
] as const;
export type AlertMetric = (typeof ALERT_METRICS)[number];

/** Metrics measured in percent of requests: a threshold above 100 could never be crossed. */
export const PERCENT_METRICS: ReadonlySet<AlertMetric> = new Set([
  "error_rate", "availability", "fallback_rate", "rate_limited_rate", "cache_hit_rate",
]);

/** The windows a rule may look back over, in ms: a fixed list so rollups can serve each. */
export const ALERT_WINDOWS = {
  "1m": 60_000, "5m": 300_000, "15m": 900_000, "30m": 1_800_000, "1h": 3_600_000, "6h": 21_600_000, "24h": 86_400_000,
} as const;
export type AlertWindow = keyof typeof ALERT_WINDOWS;

export const ALERT_SEVERITIES = ["info", "warning", "critical"] as const;
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];

/** The longest `for` or `keep_firing_for`: the longest window. */
export const MAX_DURATION_MS = ALERT_WINDOWS["24h"];

const Scope = Type.Object({
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  provider: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  task: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  tag: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
}, { additionalProperties: false });

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  metric: lit(ALERT_METRICS),
  scope: Type.Optional(Scope),
  op: lit(["gt", "lt"] as const),
  threshold: Type.Number({ minimum: 0 }),
  window: lit(Object.keys(ALERT_WINDOWS) as AlertWindow[]),
  min_requests: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
  // Strings here; parseDuration gives the clear message ("'for' must be a duration like ...").
  for: Type.Optional(Type.String({ maxLength: 32 })),
  keep_firing_for: Type.Optional(Type.String({ maxLength: 32 })),
  severity: Type.Optional(lit(ALERT_SEVERITIES)),
  enabled: Type.Optional(Type.Boolean()),
};

export const AlertRuleCreateSchema = Type.Object(fields, { additionalProperties: false });
export const AlertRulePatchSchema = Type.Partial(Type.Object(fields), { additionalProperties: false });
export type AlertRuleCreate = Static<typeof AlertRuleCreateSchema>;
export type AlertRulePatch = Static<typeof AlertRulePatchSchema>;

/** A rule with every default filled in, as stored and returned. */
export interface AlertRule {
  name: string;
  metric: AlertMetric;
  scope: { model?: string; provider?: string; task?: string; tag?: string };
  op: "gt" | "lt";
  threshold: number;
  window: AlertWindow;
  min_requests: number;
  for: string;
  keep_firing_for: string;
  severity: AlertSeverity;
  enabled: boolean;
}

export const RULE_DEFAULTS = { min_requests: 1, for: "0s", keep_firing_for: "0s", severity: "warning", enabled: true } as const;

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/** "0s", "90s", "2m", "1h30m" -> ms (units d, h, m, s in that order, as Prometheus writes them);
 * anything else, or past 24h, throws 400 naming `field`. */
export function parseDuration(text: string, field: string): number {
  const m = DURATION.exec(text);
  if (!text || !m) throw invalidRequest(`Invalid value for '${field}': expected a duration like "0s", "30s", "2m" or "1h30m", got ${JSON.stringify(text)}.`, field);
  const [, d, h, min, s] = m;
  const ms = Number(d ?? 0) * UNIT_MS.d! + Number(h ?? 0) * UNIT_MS.h! + Number(min ?? 0) * UNIT_MS.m! + Number(s ?? 0) * UNIT_MS.s!;
  if (ms > MAX_DURATION_MS) throw invalidRequest(`Invalid value for '${field}': at most 24h, got ${JSON.stringify(text)}.`, field);
  return ms;
}

const checkCreate = compileValidator(AlertRuleCreateSchema);
const checkPatch = compileValidator(AlertRulePatchSchema);

/** Checks what the schema cannot say: durations parse, and a percent threshold is at most 100. */
function checkRule(rule: AlertRule): AlertRule {
  parseDuration(rule.for, "for");
  parseDuration(rule.keep_firing_for, "keep_firing_for");
  if (PERCENT_METRICS.has(rule.metric) && rule.threshold > 100) {
    throw invalidRequest(`Invalid value for 'threshold': ${rule.metric} is a percentage, so at most 100.`, "threshold");
  }
  return rule;
}

/** A create body -> the rule with defaults filled in; 400 naming the first bad field. */
export function parseAlertRule(body: unknown): AlertRule {
  const b = checkCreate(body);
  return checkRule({ ...RULE_DEFAULTS, ...b, scope: b.scope ?? {} });
}

/** A PATCH body applied to a stored rule; the result is checked as a whole (a new metric must
 * still fit the old threshold). */
export function patchAlertRule(rule: AlertRule, body: unknown): AlertRule {
  const p = checkPatch(body);
  return checkRule({ ...rule, ...p, scope: p.scope ?? rule.scope });
}

/** What the state machine needs of a rule, durations in ms. */
export interface RuleCheck {
  op: "gt" | "lt";
  threshold: number;
  min_requests: number;
  for_ms: number;
  keep_firing_for_ms: number;
}

export const ruleCheck = (rule: AlertRule): RuleCheck => ({
  op: rule.op,
  threshold: rule.threshold,
  min_requests: rule.min_requests,
  for_ms: parseDuration(rule.for, "for"),
  keep_firing_for_ms: parseDuration(rule.keep_firing_for, "keep_firing_for"),
});
