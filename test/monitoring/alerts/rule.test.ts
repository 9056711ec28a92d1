// Alert rule bodies (docs/monitoring.md "Alert rules"): defaults, the fixed windows and metrics, and
// durations, each bad field answering 400 invalid_request that names it.
import { describe, expect, test } from "bun:test";
import { GwError } from "../../../src/errors/gw-error.ts";
import { ALERT_METRICS, parseAlertRule, parseDuration, patchAlertRule, ruleCheck } from "../../../src/monitoring/alerts/rule.ts";

const base = { name: "errors", metric: "error_rate", op: "gt", threshold: 50, window: "1m" };

/** The GwError a call throws (fails the test when it throws nothing or something else). */
function errorOf(fn: () => unknown): GwError {
  try {
    fn();
  } catch (err) {
    if (err instanceof GwError) return err;
    throw err;
  }
  throw new Error("expected a GwError");
}

describe("parseDuration", () => {
  test("seconds, minutes, hours, days and Prometheus-style combinations", () => {
    expect(parseDuration("0s", "for")).toBe(0);
    expect(parseDuration("90s", "for")).toBe(90_000);
    expect(parseDuration("2m", "for")).toBe(120_000);
    expect(parseDuration("1h30m", "for")).toBe(5_400_000);
    expect(parseDuration("1d", "for")).toBe(86_400_000);
  });

  test("anything else is 400 naming the field", () => {
    for (const bad of ["", "5", "2 m", "-1s", "1.5m", "2M", "30m1h", "1w", "s"]) {
      const err = errorOf(() => parseDuration(bad, "keep_firing_for"));
      expect(err.code).toBe("invalid_request");
      expect(err.status).toBe(400);
      expect(err.param).toBe("keep_firing_for");
      expect(err.message).toContain("'keep_firing_for'");
    }
  });

  test("at most 24h", () => {
    expect(parseDuration("24h", "for")).toBe(86_400_000);
    const err = errorOf(() => parseDuration("25h", "for"));
    expect(err.param).toBe("for");
    expect(err.message).toContain("at most 24h");
  });
});

describe("parseAlertRule", () => {
  test("fills the defaults", () => {
    expect(parseAlertRule(base)).toEqual({
      ...base, scope: {}, min_requests: 1, for: "0s", keep_firing_for: "0s", severity: "warning", enabled: true,
    } as ReturnType<typeof parseAlertRule>);
  });

  test("takes every field as given", () => {
    const body = {
      name: "slow gpt", metric: "latency_p95", scope: { model: "gpt-4o", provider: "openai", task: "chat", tag: "prod" },
      op: "gt", threshold: 2500, window: "15m", min_requests: 20, for: "2m", keep_firing_for: "5m", severity: "critical", enabled: false,
    };
    expect(parseAlertRule(body)).toEqual(body as ReturnType<typeof parseAlertRule>);
  });

  test("every listed metric is accepted", () => {
    for (const metric of ALERT_METRICS) expect(parseAlertRule({ ...base, metric }).metric).toBe(metric);
  });

  test("each bad field names itself", () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, window: "2m" }, "window"],
      [{ ...base, metric: "p50" }, "metric"],
      [{ ...base, op: "ge" }, "op"],
      [{ ...base, severity: "page" }, "severity"],
      [{ ...base, threshold: -1 }, "threshold"],
      [{ ...base, threshold: "50" }, "threshold"],
      [{ ...base, threshold: 101 }, "threshold"],
      [{ ...base, min_requests: 1.5 }, "min_requests"],
      [{ ...base, for: "soon" }, "for"],
      [{ ...base, keep_firing_for: 30 }, "keep_firing_for"],
      [{ ...base, scope: { region: "eu" } }, "scope.region"],
      [{ ...base, name: "" }, "name"],
      [{ ...base, colour: "red" }, "colour"],
    ];
    for (const [body, param] of cases) {
      const err = errorOf(() => parseAlertRule(body));
      expect(err.status).toBe(400);
      expect(err.param).toBe(param);
    }
    const missing = errorOf(() => parseAlertRule({ name: "x", metric: "error_rate", op: "gt", threshold: 1 }));
    expect(missing.param).toBe("window");
  });

  test("the window names the allowed values", () => {
    const err = errorOf(() => parseAlertRule({ ...base, window: "2m" }));
    expect(err.message).toContain('"1m", "5m", "15m", "30m", "1h", "6h", "24h"');
  });

  test("a percent threshold is at most 100; other metrics are not capped", () => {
    expect(parseAlertRule({ ...base, metric: "availability", op: "lt", threshold: 99 }).threshold).toBe(99);
    expect(parseAlertRule({ ...base, metric: "latency_p99", threshold: 30_000 }).threshold).toBe(30_000);
    expect(parseAlertRule({ ...base, metric: "budget_used_pct", threshold: 150 }).threshold).toBe(150);
  });
});

describe("patchAlertRule", () => {
  const rule = parseAlertRule({ ...base, scope: { model: "m" } });

  test("changes only what it names", () => {
    const patched = patchAlertRule(rule, { threshold: 20, for: "1m", enabled: false });
    expect(patched).toEqual({ ...rule, threshold: 20, for: "1m", enabled: false });
    expect(patchAlertRule(rule, {}).scope).toEqual({ model: "m" });
    expect(patchAlertRule(rule, { scope: {} }).scope).toEqual({});
  });

  test("the result is checked as a whole", () => {
    const high = patchAlertRule(rule, { metric: "latency_p95", threshold: 500 });
    expect(errorOf(() => patchAlertRule(high, { metric: "error_rate" })).param).toBe("threshold");
    expect(errorOf(() => patchAlertRule(rule, { keep_firing_for: "2x" })).param).toBe("keep_firing_for");
    expect(errorOf(() => patchAlertRule(rule, { window: "7d" })).param).toBe("window");
    expect(errorOf(() => patchAlertRule(rule, { colour: "red" })).param).toBe("colour");
    expect(errorOf(() => patchAlertRule(rule, { name: "" })).param).toBe("name");
  });
});

test("ruleCheck gives the state machine durations in ms", () => {
  const rule = parseAlertRule({ ...base, min_requests: 5, for: "2m", keep_firing_for: "1h" });
  expect(ruleCheck(rule)).toEqual({ op: "gt", threshold: 50, min_requests: 5, for_ms: 120_000, keep_firing_for_ms: 3_600_000 });
});
