// Alert rules and their incidents (docs/monitoring.md "Alert rules", "Incidents"): the admin API's
// methods, and evaluate(), one pass over every enabled rule at clock.now(), run by a timer.
import { invalidRequest, GwError } from "../../errors/gw-error.ts";
import type { Clock } from "../../lib/clock.ts";
import { sortableId } from "../../lib/ids.ts";
import { emptyTotals, type RollupTotals } from "../../store/metrics-rollup.ts";
import type { RequestRecord } from "../../store/request-record.ts";
import type { AlertRulesRepo, StoredAlertRule } from "../../store/repos/alert-rules.ts";
import type { IncidentRow, IncidentsRepo } from "../../store/repos/incidents.ts";
import type { EmitEvent } from "../webhooks/emitter.ts";
import { metricValue, type BudgetUse } from "./metric-value.ts";
import { ALERT_WINDOWS, parseAlertRule, patchAlertRule, ruleCheck, type AlertRule } from "./rule.ts";
import { BACKFILLS_PER_PASS, ScopedTotals, windowRange } from "./scoped-totals.ts";
import { initialAlertState, step, type AlertSample, type AlertState } from "./state-machine.ts";
import {
  alertRuleView, builtInIncident, incidentEventData, incidentView, ruleOf, stateOf,
  type AlertRuleView, type BuiltInIncident, type IncidentView,
} from "./views.ts";

export interface AlertRulesOptions {
  rules: AlertRulesRepo;
  incidents: IncidentsRepo;
  /** A project's rollup totals of requests created in [from, to), minute-aligned. */
  projectTotals: (projectId: string, from: number, to: number) => RollupTotals;
  budgetUse: (projectId: string) => BudgetUse | null;
  emit: EmitEvent;
  clock: Clock;
  intervalMs: number;
  /** The recorded-request listeners; scoped rules' counting joins them. */
  requestListeners: Array<(row: RequestRecord) => void>;
  /** Extra passes run by evaluate() (the built-in provider rules). */
  extraPasses?: Array<(now: number) => void>;
  onError: (err: unknown, context: string) => void;
}

export const INCIDENT_PAGE_MAX = 100;
/** Each rule is evaluated every interval and a scoped one keeps a day of minute totals in memory. */
export const MAX_RULES_PER_PROJECT = 100;
const INCIDENT_PAGE_DEFAULT = 50;

const hasScope = (rule: AlertRule): boolean => Object.keys(rule.scope).length > 0;

export class AlertRules {
  private readonly scoped: ScopedTotals;
  /** Backfills this evaluation pass may still start (BACKFILLS_PER_PASS). */
  private backfillsLeft = 0;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly o: AlertRulesOptions) {
    this.scoped = new ScopedTotals(o.rules.recentRequests);
    o.requestListeners.push(this.scoped.listener);
  }

  create(projectId: string, body: unknown): AlertRuleView {
    const rule = parseAlertRule(body);
    if (this.o.rules.list(projectId).length >= MAX_RULES_PER_PROJECT) {
      throw new GwError("conflict", `A project has at most ${MAX_RULES_PER_PROJECT} alert rules; delete one first.`, { param: "name" });
    }
    const now = this.o.clock.now();
    const id = `alr_${sortableId(now)}`;
    this.o.rules.insert({ id, projectId, rule: JSON.stringify(rule), now });
    if (hasScope(rule)) this.scoped.watch(id, projectId, rule, ALERT_WINDOWS[rule.window], now);
    return this.view(id);
  }

  list(projectId: string): { object: "list"; data: AlertRuleView[] } {
    return { object: "list", data: this.o.rules.list(projectId).map(alertRuleView) };
  }

  get(id: string): AlertRuleView | null {
    const r = this.o.rules.get(id);
    return r ? alertRuleView(r) : null;
  }

  /** The project of a rule, deleted or not (for the audit entry). */
  projectOf(id: string): string | null {
    return this.o.rules.projectOf(id);
  }

  /** A disabled rule resolves its open incident and starts over from normal when enabled again. */
  update(id: string, body: unknown): AlertRuleView {
    const stored = this.stored(id);
    const rule = patchAlertRule(ruleOf(stored), body);
    const now = this.o.clock.now();
    let state: AlertState | null = stateOf(stored);
    if (!rule.enabled) {
      this.resolveOpen(stored, now);
      state = null;
    }
    this.o.rules.update(id, JSON.stringify(rule), state && JSON.stringify(state), now);
    if (hasScope(rule)) this.scoped.watch(id, stored.projectId, rule, ALERT_WINDOWS[rule.window], now);
    else this.scoped.unwatch(id);
    return this.view(id);
  }

  /** Deleting resolves the rule's open incident (receivers see it end). */
  remove(id: string): { object: "alert_rule"; id: string; deleted: true } {
    const stored = this.stored(id);
    const now = this.o.clock.now();
    this.resolveOpen(stored, now);
    this.o.rules.remove(id, now);
    this.scoped.unwatch(id);
    return { object: "alert_rule", id, deleted: true };
  }

  incidents(projectId: string, q: { status?: "opened" | "resolved"; limit?: number; after?: string }) {
    const limit = q.limit ?? INCIDENT_PAGE_DEFAULT;
    const rows = this.o.incidents.list({ projectId, status: q.status, after: q.after, limit: limit + 1 });
    const data: IncidentView[] = rows.slice(0, limit).map(incidentView);
    const has_more = rows.length > limit;
    return { object: "list" as const, data, has_more, next_cursor: has_more ? data[data.length - 1]!.id : null };
  }

  builtInIncidents(sinceMs: number): BuiltInIncident[] {
    return this.o.incidents.builtInSince(sinceMs).map(builtInIncident);
  }

  /** One pass at clock.now(): each enabled rule's metric over its window, stepped, stored; an
   * opening or a resolution writes the incident and emits its event. One rule failing skips it. */
  evaluate(): void {
    const now = this.o.clock.now();
    this.backfillsLeft = BACKFILLS_PER_PASS;
    for (const stored of this.o.rules.all()) {
      try {
        const rule = ruleOf(stored);
        if (rule.enabled) this.evaluateRule(stored, rule, now);
      } catch (err) {
        this.o.onError(err, `alert rule ${stored.id} not evaluated`);
      }
    }
    for (const pass of this.o.extraPasses ?? []) {
      try {
        pass(now);
      } catch (err) {
        this.o.onError(err, "built-in alert rules not evaluated");
      }
    }
  }

  start(): void {
    // Scoped rules start counting at the passes that follow, a few backfills a pass.
    this.timer ??= setInterval(() => this.evaluate(), this.o.intervalMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private evaluateRule(stored: StoredAlertRule, rule: AlertRule, now: number): void {
    if (hasScope(rule) && !this.scoped.watching(stored.id)) {
      // Not counted yet (after a restart): its backfill waits for a pass with room, state untouched.
      if (this.backfillsLeft <= 0) return;
      this.backfillsLeft--;
      this.scoped.watch(stored.id, stored.projectId, rule, ALERT_WINDOWS[rule.window], now);
    }
    const sample = this.sample(stored, rule, now);
    const { state, transition } = step(stateOf(stored), sample, ruleCheck(rule), now);
    this.o.rules.setState(stored.id, JSON.stringify(state));
    const values = { peak: state.peak_value, last: state.last_value };
    if (transition === "opened") {
      const opened = this.o.incidents.open({
        id: `inc_${sortableId(now)}`, projectId: stored.projectId, ruleId: stored.id, ruleName: rule.name, component: null,
        severity: rule.severity, metric: rule.metric, threshold: rule.threshold, window: rule.window, openedAt: now,
        peakValue: values.peak, lastValue: values.last,
      });
      if (opened) this.emit(stored.projectId, "incident.opened", opened, sample.value);
    } else if (transition === "resolved") {
      const resolved = this.o.incidents.resolve(stored.id, now, values);
      if (resolved) this.emit(stored.projectId, "incident.resolved", resolved, sample.value);
    } else if (state.status === "firing" || state.status === "recovering") {
      this.o.incidents.setValues(stored.id, values);
    }
  }

  /** The metric over the rule's window ending at `now`; budget_used_pct is the period's spend, so
   * min_requests does not apply to it. */
  private sample(stored: StoredAlertRule, rule: AlertRule, now: number): AlertSample {
    if (rule.metric === "budget_used_pct") {
      return { value: metricValue(rule.metric, emptyTotals(), this.o.budgetUse(stored.projectId)), requests: Number.MAX_SAFE_INTEGER };
    }
    const totals = this.totals(stored, rule, now);
    return { value: metricValue(rule.metric, totals), requests: totals.requests };
  }

  private totals(stored: StoredAlertRule, rule: AlertRule, now: number): RollupTotals {
    const windowMs = ALERT_WINDOWS[rule.window];
    if (!hasScope(rule)) {
      const { from, to } = windowRange(now, windowMs);
      return this.o.projectTotals(stored.projectId, from, to);
    }
    return this.scoped.totals(stored.id, now);
  }

  private resolveOpen(stored: StoredAlertRule, now: number): void {
    const state = stateOf(stored);
    const resolved = this.o.incidents.resolve(stored.id, now, { peak: state.peak_value, last: state.last_value });
    if (resolved) this.emit(stored.projectId, "incident.resolved", resolved, state.last_value);
    this.o.rules.setState(stored.id, JSON.stringify(initialAlertState()));
  }

  private emit(projectId: string, type: "incident.opened" | "incident.resolved", i: IncidentRow, value: number | null): void {
    this.o.emit({ projectId, type, key: `${i.id}:${type === "incident.opened" ? "opened" : "resolved"}`, data: incidentEventData(i, value) });
  }

  private stored(id: string): StoredAlertRule {
    const r = this.o.rules.get(id);
    if (!r) throw new GwError("not_found", `No alert rule '${id}'.`, { param: "rule_id" });
    return r;
  }

  private view(id: string): AlertRuleView {
    return alertRuleView(this.stored(id));
  }
}

/** `status`, `limit` and `after` of an incidents query, checked: 400 naming the bad one. */
export function incidentPageQuery(params: URLSearchParams): { status?: "opened" | "resolved"; limit?: number; after?: string } {
  const status = params.get("status");
  if (status !== null && status !== "opened" && status !== "resolved") throw invalidRequest("status must be opened or resolved.", "status");
  const rawLimit = params.get("limit");
  const limit = rawLimit === null ? undefined : Number(rawLimit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > INCIDENT_PAGE_MAX)) {
    throw invalidRequest(`limit must be an integer from 1 to ${INCIDENT_PAGE_MAX}.`, "limit");
  }
  const after = params.get("after");
  if (after !== null && !/^inc_[0-9a-z]{22}$/.test(after)) throw invalidRequest("after must be a next_cursor this endpoint returned.", "after");
  return { status: status ?? undefined, limit, after: after ?? undefined };
}
