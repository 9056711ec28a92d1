// The alert state machine (docs/monitoring.md "Alert rules") driven by explicit timestamps, as the
// evaluator drives it every interval on the injected clock: `for`, `keep_firing_for`, min_requests.
import { describe, expect, test } from "bun:test";
import type { RuleCheck } from "../../../src/monitoring/alerts/rule.ts";
import { initialAlertState, step, type AlertSample, type AlertState, type AlertTransition } from "../../../src/monitoring/alerts/state-machine.ts";

const T0 = Date.UTC(2026, 10, 26, 4, 0, 0);
const S = 1000;
/** error_rate gt 50 over >= 5 requests, like the example rule. */
const errors = (over: Partial<RuleCheck> = {}): RuleCheck => ({ op: "gt", threshold: 50, min_requests: 5, for_ms: 0, keep_firing_for_ms: 0, ...over });

interface Run {
  states: AlertState[];
  transitions: Array<{ at: number; transition: AlertTransition }>;
}

/** Steps one sample per interval from T0 (every `everyMs`), recording each state and transition. */
function run(rule: RuleCheck, samples: Array<number | null | AlertSample>, everyMs = 30 * S): Run {
  let state = initialAlertState();
  const out: Run = { states: [], transitions: [] };
  samples.forEach((s, i) => {
    const sample = typeof s === "object" && s !== null ? s : { value: s, requests: s === null ? 0 : 100 };
    const now = T0 + i * everyMs;
    const r = step(state, sample, rule, now);
    state = r.state;
    out.states.push(state);
    if (r.transition) out.transitions.push({ at: now, transition: r.transition });
  });
  return out;
}

const statuses = (r: Run) => r.states.map((s) => s.status);

describe("a sustained outage", () => {
  test("for 0s: one opened at the first breach, one resolved at the first clear evaluation", () => {
    const r = run(errors(), [0, 2, 80, 90, 100, 95, 70, 10, 0, 0]);
    expect(r.transitions).toEqual([{ at: T0 + 2 * 30 * S, transition: "opened" }, { at: T0 + 7 * 30 * S, transition: "resolved" }]);
    expect(statuses(r)).toEqual(["normal", "normal", "firing", "firing", "firing", "firing", "firing", "normal", "normal", "normal"]);
    const resolved = r.states[7]!;
    expect(resolved.peak_value).toBe(100);
    expect(resolved.last_value).toBe(10);
    expect(resolved.opened_at).toBe(T0 + 60 * S);
  });

  test("for 2m: pending until the breach has lasted two minutes, then one incident", () => {
    const r = run(errors({ for_ms: 120 * S }), [0, 60, 70, 80, 90, 99, 99, 0], 30 * S);
    expect(statuses(r)).toEqual(["normal", "pending", "pending", "pending", "pending", "firing", "firing", "normal"]);
    expect(r.transitions).toEqual([{ at: T0 + 150 * S, transition: "opened" }, { at: T0 + 210 * S, transition: "resolved" }]);
    // The peak counts the pending part of the breach too.
    expect(r.states[5]!.peak_value).toBe(99);
    expect(r.states[5]!.breach_since).toBe(T0 + 30 * S);
  });

  test("the threshold itself is not a breach (strictly greater / less)", () => {
    expect(run(errors(), [50, 50, 50]).transitions).toEqual([]);
    expect(run(errors({ op: "lt", threshold: 99 }), [99, 99]).transitions).toEqual([]);
  });
});

describe("a short spike", () => {
  test("shorter than `for` opens nothing and returns to normal", () => {
    const r = run(errors({ for_ms: 120 * S }), [0, 100, 100, 100, 0, 0, 100, 0]);
    expect(r.transitions).toEqual([]);
    expect(statuses(r)).toEqual(["normal", "pending", "pending", "pending", "normal", "normal", "pending", "normal"]);
  });

  test("a breach interrupted once starts its `for` over", () => {
    // 90 s breaching, one clear sample, 90 s breaching again: never two minutes in a row.
    const r = run(errors({ for_ms: 120 * S }), [100, 100, 100, 100, 0, 100, 100, 100, 100, 0]);
    expect(r.transitions).toEqual([]);
  });
});

describe("flapping", () => {
  test("within keep_firing_for opens exactly one incident", () => {
    const r = run(errors({ keep_firing_for_ms: 120 * S }), [100, 0, 100, 0, 0, 100, 0, 100, 0, 0, 0, 0, 0]);
    expect(r.transitions.map((t) => t.transition)).toEqual(["opened", "resolved"]);
    expect(r.transitions[0]!.at).toBe(T0);
    // Last breach at index 7; clear from index 8 (240 s); resolved at 240 + 120 = 360 s (index 12).
    expect(r.transitions[1]!.at).toBe(T0 + 360 * S);
    expect(statuses(r).slice(0, 4)).toEqual(["firing", "recovering", "firing", "recovering"]);
    expect(r.states[11]!.status).toBe("recovering");
  });

  test("without keep_firing_for each breach is its own incident (what keep_firing_for is for)", () => {
    const r = run(errors(), [100, 0, 100, 0]);
    expect(r.transitions.map((t) => t.transition)).toEqual(["opened", "resolved", "opened", "resolved"]);
  });

  test("a new incident after resolving starts a new peak", () => {
    const r = run(errors(), [100, 0, 60, 0]);
    expect(r.states[0]!.peak_value).toBe(100);
    expect(r.states[2]!.peak_value).toBe(60);
    expect(r.states[2]!.opened_at).toBe(T0 + 60 * S);
  });
});

describe("min_requests", () => {
  test("fewer requests never fire, however bad the value", () => {
    const few = { value: 100, requests: 4 };
    const r = run(errors(), [few, few, few, few]);
    expect(r.transitions).toEqual([]);
    expect(statuses(r)).toEqual(["normal", "normal", "normal", "normal"]);
    expect(r.states[3]!.last_value).toBe(100);
  });

  test("exactly min_requests is enough", () => {
    expect(run(errors(), [{ value: 100, requests: 5 }]).transitions.map((t) => t.transition)).toEqual(["opened"]);
  });

  test("traffic dropping below min_requests while firing counts as clear", () => {
    const r = run(errors(), [{ value: 100, requests: 50 }, { value: 100, requests: 2 }]);
    expect(r.transitions.map((t) => t.transition)).toEqual(["opened", "resolved"]);
  });

  test("a window with no value is not a breach, and keeps the last value", () => {
    const r = run(errors(), [100, null]);
    expect(r.transitions.map((t) => t.transition)).toEqual(["opened", "resolved"]);
    expect(r.states[1]!.last_value).toBe(100);
  });
});

describe("lt rules: availability lt 99", () => {
  const availability = errors({ op: "lt", threshold: 99, for_ms: 60 * S, keep_firing_for_ms: 60 * S });

  test("fires after a minute below, peak is the lowest value, resolves a minute after recovery", () => {
    const r = run(availability, [100, 98, 97, 90, 95, 99.5, 100, 100, 100]);
    expect(statuses(r)).toEqual(["normal", "pending", "pending", "firing", "firing", "recovering", "recovering", "normal", "normal"]);
    expect(r.transitions).toEqual([{ at: T0 + 90 * S, transition: "opened" }, { at: T0 + 210 * S, transition: "resolved" }]);
    expect(r.states[7]!.peak_value).toBe(90);
    expect(r.states[7]!.last_value).toBe(100);
  });

  test("100% availability never fires", () => {
    expect(run(availability, [100, 100, 100, 100]).transitions).toEqual([]);
  });
});

test("irregular evaluation times: `for` is measured on the timestamps passed in", () => {
  const rule = errors({ for_ms: 60 * S });
  let state = initialAlertState();
  const sample = { value: 100, requests: 100 };
  const transitions: Array<AlertTransition | undefined> = [];
  for (const at of [0, 59_999, 60_000, 61_000]) {
    const r = step(state, sample, rule, T0 + at);
    state = r.state;
    transitions.push(r.transition);
  }
  expect(transitions).toEqual([undefined, undefined, "opened", undefined]);
});

test("step does not change the state it is given", () => {
  const before = initialAlertState();
  const frozen = JSON.stringify(before);
  step(before, { value: 100, requests: 100 }, errors(), T0);
  expect(JSON.stringify(before)).toBe(frozen);
});
