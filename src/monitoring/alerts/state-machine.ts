// One rule's alert state, stepped once per evaluation (docs/monitoring.md "Alert rules"): normal ->
// pending -> firing -> recovering -> normal, with Prometheus' `for` and `keep_firing_for`. Pure: the
// evaluator passes `now` from the injected clock and stores the state it gets back.
import type { RuleCheck } from "./rule.ts";

export type AlertStatus = "normal" | "pending" | "firing" | "recovering";

export interface AlertState {
  status: AlertStatus;
  /** When the current breach began (pending or firing at once); null in normal. */
  breach_since: number | null;
  /** When the incident opened (the step that fired); kept after it resolves, until the next breach. */
  opened_at: number | null;
  /** When the breach last cleared while firing; null unless recovering. */
  cleared_at: number | null;
  /** The worst value of the current or last episode: the highest for `gt`, the lowest for `lt`. */
  peak_value: number | null;
  /** The last value measured (a window with no requests keeps the one before). */
  last_value: number | null;
}

export interface AlertSample {
  /** The metric over the rule's window; null when it has no value (no requests). */
  value: number | null;
  requests: number;
}

export type AlertTransition = "opened" | "resolved";

export interface StepResult {
  state: AlertState;
  transition?: AlertTransition;
}

export const initialAlertState = (): AlertState => ({
  status: "normal", breach_since: null, opened_at: null, cleared_at: null, peak_value: null, last_value: null,
});

/** Too few requests is not a breach: five requests with one error are not a 20% outage. */
export function isBreaching(sample: AlertSample, rule: RuleCheck): boolean {
  if (sample.value === null || sample.requests < rule.min_requests) return false;
  return rule.op === "gt" ? sample.value > rule.threshold : sample.value < rule.threshold;
}

const worse = (op: RuleCheck["op"], a: number | null, b: number | null): number | null => {
  if (a === null) return b;
  if (b === null) return a;
  return op === "gt" ? Math.max(a, b) : Math.min(a, b);
};

/** The next state after one evaluation at `now`; `transition` says when an incident opens or resolves,
 * so one breach, however long or flapping within keep_firing_for, opens exactly one incident. */
export function step(state: AlertState, sample: AlertSample, rule: RuleCheck, now: number): StepResult {
  const breaching = isBreaching(sample, rule);
  const last_value = sample.value ?? state.last_value;
  switch (state.status) {
    case "normal": {
      if (!breaching) return { state: { ...state, last_value } };
      // A new episode: its peak starts over.
      const next: AlertState = { ...state, breach_since: now, cleared_at: null, peak_value: sample.value, last_value };
      if (rule.for_ms === 0) return { state: { ...next, status: "firing", opened_at: now }, transition: "opened" };
      return { state: { ...next, status: "pending", opened_at: null } };
    }
    case "pending": {
      if (!breaching) return { state: { ...state, status: "normal", breach_since: null, last_value } };
      const next: AlertState = { ...state, peak_value: worse(rule.op, state.peak_value, sample.value), last_value };
      const since = state.breach_since ?? now;
      if (now - since >= rule.for_ms) return { state: { ...next, status: "firing", opened_at: now }, transition: "opened" };
      return { state: next };
    }
    case "firing":
    case "recovering": {
      if (breaching) {
        return { state: { ...state, status: "firing", cleared_at: null, peak_value: worse(rule.op, state.peak_value, sample.value), last_value } };
      }
      const cleared_at = state.status === "recovering" ? state.cleared_at ?? now : now;
      if (now - cleared_at >= rule.keep_firing_for_ms) {
        return { state: { ...state, status: "normal", breach_since: null, cleared_at: null, last_value }, transition: "resolved" };
      }
      return { state: { ...state, status: "recovering", cleared_at, last_value } };
    }
  }
}
