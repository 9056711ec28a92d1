// Alert rules and their incidents (docs/monitoring.md "Alert rules", "Incidents"): the admin API's
// methods, and evaluate(), one pass over every enabled rule at clock.now(), run by a timer (or, with
// several instances, by the leader over its transaction's stores: docs/scale-out.md).
import { invalidRequest, GwError } from "../../errors/gw-error.ts";
import type { Clock } from "../../lib/clock.ts";
import { sortableId } from "../../lib/ids.ts";
import { emptyTotals, type RollupTotals } from "../../store/metrics-rollup.ts";
import type { SqlValue } from "../../store/log-batch-codec.ts";
import type { RequestRecord } from "../../store/request-record.ts";
import type { AlertRulesStore, StoredAlertRule } from "../../store/repos/alert-rules.ts";
import type { IncidentRow, IncidentsStore } from "../../store/repos/incidents.ts";
import type { BuiltInStateStore } from "../../store/postgres/alerts.ts";
import type { EmitEvent } from "../webhooks/emitter.ts";
import { metricValue, type BudgetUse } from "./metric-value.ts";
import { ALERT_WINDOWS, parseAlertRule, patchAlertRule, ruleCheck, type AlertRule } from "./rule.ts";
import { BACKFILLS_PER_PASS, ScopedTotals, windowRange } from "./scoped-totals.ts";
import { step, type AlertSample, type AlertState } from "./state-machine.ts";
import {
  alertRuleView, builtInIncident, incidentEventData, incidentView, ruleOf, stateOf,
  type AlertRuleView, type BuiltInIncident, type IncidentView,
} from "./views.ts";

/** The stores one evaluation pass reads and writes: the instance's own, or the leader's transaction's. */
export interface AlertPassStores {
  rules: AlertRulesStore;
  incidents: IncidentsStore;
  /** Built-in rules' state kept outside this process (several instances); in memory without it. */
  builtInStates?: BuiltInStateStore;
  /** Runs one rule's work on stores of its own that a failure rolls back alone (a savepoint of the
   * leader's transaction); without it a failure in a transaction ends the pass. */
  each?: (work: (stores: AlertPassStores) => Promise<void>) => Promise<void>;
}

/** Scoped rules' totals: counted in memory from this instance's requests (one instance), or read
 * from the shared request log (several). */
export type ScopedSource =
  | { kind: "listeners"; requestListeners: Array<(row: RequestRecord) => void>; recent: (projectId: string, from: number, limit: number) => SqlValue[][] }
  | { kind: "query"; totals: (rule: ScopedRuleRef, from: number, to: number, now: number) => Promise<RollupTotals> };

/** A scoped rule as its shared totals are read: `version` changes whenever the rule does. */
export interface ScopedRuleRef { id: string; version: string; projectId: string; scope: AlertRule["scope"] }

export interface AlertRulesOptions {
  rules: AlertRulesStore;
  incidents: IncidentsStore;
  /** A project's rollup totals of requests created in [from, to), minute-aligned. */
  projectTotals: (projectId: string, from: number, to: number) => RollupTotals | Promise<RollupTotals>;
  budgetUse: (projectId: string) => BudgetUse | null | Promise<BudgetUse | null>;
  emit: EmitEvent;
  clock: Clock;
  intervalMs: number;
  scoped: ScopedSource;
  /** Extra passes run by evaluate() (the built-in provider rules). */
  extraPasses?: Array<(now: number, stores: AlertPassStores) => Promise<void>>;
  onError: (err: unknown, context: string) => void;
  /** A rule's project read synchronously (SQLite), for projectOf. */
  projectOfNow?: (id: string) => string | null;
}

export const INCIDENT_PAGE_MAX = 100;
/** Each rule is evaluated every interval and a scoped one keeps a day of minute totals in memory. */
export const MAX_RULES_PER_PROJECT = 100;
const INCIDENT_PAGE_DEFAULT = 50;
const SEEN_MAX = 10_000;

const hasScope = (rule: AlertRule): boolean => Object.keys(rule.scope).length > 0;

export class AlertRules {
  /** In-memory counting of scoped rules (one instance); null when they are queried. */
  private readonly scoped: ScopedTotals | null;
  /** Backfills this evaluation pass may still start (BACKFILLS_PER_PASS). */
  private backfillsLeft = 0;
  private timer: ReturnType<typeof setInterval> | null = null;
  private passing: Promise<void> | null = null;
  /** Rule id -> project of rules read lately (projectOf). */
  private readonly seen = new Map<string, string>();

  constructor(private readonly o: AlertRulesOptions) {
    if (o.scoped.kind === "listeners") {
      this.scoped = new ScopedTotals(o.scoped.recent);
      o.scoped.requestListeners.push(this.scoped.listener);
    } else {
      this.scoped = null;
    }
  }

  async create(projectId: string, body: unknown): Promise<AlertRuleView> {
    const rule = parseAlertRule(body);
    if ((await this.o.rules.list(projectId)).length >= MAX_RULES_PER_PROJECT) {
      throw new GwError("conflict", `A project has at most ${MAX_RULES_PER_PROJECT} alert rules; delete one first.`, { param: "name" });
    }
    const now = this.o.clock.now();
    const id = `alr_${sortableId(now)}`;
    await this.o.rules.insert({ id, projectId, rule: JSON.stringify(rule), now });
    if (hasScope(rule)) this.scoped?.watch(id, projectId, rule, ALERT_WINDOWS[rule.window], now);
    return this.view(id);
  }

  async list(projectId: string): Promise<{ object: "list"; data: AlertRuleView[] }> {
    return { object: "list", data: (await this.o.rules.list(projectId)).map(alertRuleView) };
  }

  async get(id: string): Promise<AlertRuleView | null> {
    const r = await this.o.rules.get(id);
    return r ? alertRuleView(r) : null;
  }

  /** The project of a rule, deleted or not (for the audit entry). */
  ruleProject(id: string): Promise<string | null> {
    return this.o.rules.projectOf(id);
  }

  /** The same, synchronously: the SQLite repo's answer, else a rule this instance has read lately
   * (the admin audit hook runs after the handler, which read it). */
  projectOf(id: string): string | null {
    return this.o.projectOfNow?.(id) ?? this.seen.get(id) ?? null;
  }

  /** A disabled rule resolves its open incident and starts over from normal when enabled again. */
  async update(id: string, body: unknown): Promise<AlertRuleView> {
    const stored = await this.stored(id);
    const rule = patchAlertRule(ruleOf(stored), body);
    const now = this.o.clock.now();
    const state: AlertState | null = rule.enabled ? stateOf(stored) : null;
    // The rule changes first: an evaluation under way then writes neither its state nor an incident
    // (its write is guarded by updated_at), or it committed first and its incident is resolved below.
    await this.o.rules.update(id, JSON.stringify(rule), state && JSON.stringify(state), now);
    if (!rule.enabled) await this.resolveOpen(stored, now);
    if (hasScope(rule)) this.scoped?.watch(id, stored.projectId, rule, ALERT_WINDOWS[rule.window], now);
    else this.scoped?.unwatch(id);
    return this.view(id);
  }

  /** Deleting resolves the rule's open incident (receivers see it end). */
  async remove(id: string): Promise<{ object: "alert_rule"; id: string; deleted: true }> {
    const stored = await this.stored(id);
    const now = this.o.clock.now();
    await this.o.rules.remove(id, now);
    await this.resolveOpen(stored, now);
    this.scoped?.unwatch(id);
    return { object: "alert_rule", id, deleted: true };
  }

  async incidents(projectId: string, q: { status?: "opened" | "resolved"; limit?: number; after?: string }) {
    const limit = q.limit ?? INCIDENT_PAGE_DEFAULT;
    const rows = await this.o.incidents.list({ projectId, status: q.status, after: q.after, limit: limit + 1 });
    const data: IncidentView[] = rows.slice(0, limit).map(incidentView);
    const has_more = rows.length > limit;
    return { object: "list" as const, data, has_more, next_cursor: has_more ? data[data.length - 1]!.id : null };
  }

  async builtInIncidents(sinceMs: number): Promise<BuiltInIncident[]> {
    return (await this.o.incidents.builtInSince(sinceMs)).map(builtInIncident);
  }

  /** One pass at clock.now() (or `now`): each enabled rule's metric over its window, stepped, stored;
   * an opening or a resolution writes the incident and emits its event. One rule failing skips it.
   * `over`: the stores to read and write instead of this instance's (the leader's transaction). */
  async evaluate(over?: AlertPassStores, at?: number): Promise<void> {
    const now = at ?? this.o.clock.now();
    const stores: AlertPassStores = over ?? { rules: this.o.rules, incidents: this.o.incidents };
    this.backfillsLeft = BACKFILLS_PER_PASS;
    // A failed statement fails the rest of a transaction: without `each` the leader's pass ends there.
    const fatal = over !== undefined && over.each === undefined;
    for (const stored of await stores.rules.all()) {
      try {
        const rule = ruleOf(stored);
        if (!rule.enabled) continue;
        if (stores.each) await stores.each((own) => this.evaluateRule(own, stored, rule, now));
        else await this.evaluateRule(stores, stored, rule, now);
      } catch (err) {
        if (fatal) throw err;
        this.o.onError(err, `alert rule ${stored.id} not evaluated`);
      }
    }
    for (const pass of this.o.extraPasses ?? []) {
      try {
        if (stores.each) await stores.each((own) => pass(now, own));
        else await pass(now, stores);
      } catch (err) {
        if (fatal) throw err;
        this.o.onError(err, "built-in alert rules not evaluated");
      }
    }
  }

  start(): void {
    // Scoped rules start counting at the passes that follow, a few backfills a pass. Passes never overlap.
    this.timer ??= setInterval(() => {
      this.passing ??= this.evaluate().catch((err) => this.o.onError(err, "alert rules not evaluated")).finally(() => (this.passing = null));
    }, this.o.intervalMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.passing;
  }

  private async evaluateRule(stores: AlertPassStores, stored: StoredAlertRule, rule: AlertRule, now: number): Promise<void> {
    if (this.scoped && hasScope(rule) && !this.scoped.watching(stored.id)) {
      // Not counted yet (after a restart): its backfill waits for a pass with room, state untouched.
      if (this.backfillsLeft <= 0) return;
      this.backfillsLeft--;
      this.scoped.watch(stored.id, stored.projectId, rule, ALERT_WINDOWS[rule.window], now);
    }
    const sample = await this.sample(stored, rule, now);
    const { state, transition } = step(stateOf(stored), sample, ruleCheck(rule), now);
    // Only while the rule is as read: a PATCH or DELETE meanwhile (another instance's) wins, and
    // this pass then opens or resolves nothing for it.
    if (!(await stores.rules.setState(stored.id, JSON.stringify(state), stored.updatedAt))) return;
    const values = { peak: state.peak_value, last: state.last_value };
    if (transition === "opened") {
      const opened = await stores.incidents.open({
        id: `inc_${sortableId(now)}`, projectId: stored.projectId, ruleId: stored.id, ruleName: rule.name, component: null,
        severity: rule.severity, metric: rule.metric, threshold: rule.threshold, window: rule.window, openedAt: now,
        peakValue: values.peak, lastValue: values.last,
      });
      if (opened) this.emit(stored.projectId, "incident.opened", opened, sample.value);
    } else if (transition === "resolved") {
      const resolved = await stores.incidents.resolve(stored.id, now, values);
      if (resolved) this.emit(stored.projectId, "incident.resolved", resolved, sample.value);
    } else if (state.status === "firing" || state.status === "recovering") {
      await stores.incidents.setValues(stored.id, values);
    }
  }

  /** The metric over the rule's window ending at `now`; budget_used_pct is the period's spend, so
   * min_requests does not apply to it. */
  private async sample(stored: StoredAlertRule, rule: AlertRule, now: number): Promise<AlertSample> {
    if (rule.metric === "budget_used_pct") {
      return { value: metricValue(rule.metric, emptyTotals(), await this.o.budgetUse(stored.projectId)), requests: Number.MAX_SAFE_INTEGER };
    }
    const totals = await this.totals(stored, rule, now);
    return { value: metricValue(rule.metric, totals), requests: totals.requests };
  }

  private async totals(stored: StoredAlertRule, rule: AlertRule, now: number): Promise<RollupTotals> {
    const { from, to } = windowRange(now, ALERT_WINDOWS[rule.window]);
    if (!hasScope(rule)) return this.o.projectTotals(stored.projectId, from, to);
    if (this.scoped) return this.scoped.totals(stored.id, now);
    if (this.o.scoped.kind !== "query") return emptyTotals();
    return this.o.scoped.totals({ id: stored.id, version: String(stored.updatedAt), projectId: stored.projectId, scope: rule.scope }, from, to, now);
  }

  /** After a rule is disabled or deleted: its open incident resolves (receivers see it end). */
  private async resolveOpen(stored: StoredAlertRule, now: number): Promise<void> {
    const state = stateOf(stored);
    const resolved = await this.o.incidents.resolve(stored.id, now, { peak: state.peak_value, last: state.last_value });
    if (resolved) this.emit(stored.projectId, "incident.resolved", resolved, state.last_value);
  }

  private emit(projectId: string, type: "incident.opened" | "incident.resolved", i: IncidentRow, value: number | null): void {
    this.o.emit({ projectId, type, key: `${i.id}:${type === "incident.opened" ? "opened" : "resolved"}`, data: incidentEventData(i, value) });
  }

  private async stored(id: string): Promise<StoredAlertRule> {
    const r = await this.o.rules.get(id);
    if (!r) throw new GwError("not_found", `No alert rule '${id}'.`, { param: "rule_id" });
    if (this.seen.size >= SEEN_MAX) this.seen.clear();
    this.seen.set(id, r.projectId);
    return r;
  }

  private async view(id: string): Promise<AlertRuleView> {
    return alertRuleView(await this.stored(id));
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
