// AlertRules over its repos, as buildDeps makes it (docs/monitoring.md "Alert rules"); with several
// instances over PostgreSQL, evaluated by the leader (docs/scale-out.md).
import type { Database } from "bun:sqlite";
import type { Billing } from "../../billing/billing.ts";
import type { Clock } from "../../lib/clock.ts";
import type { RequestRecord } from "../../store/request-record.ts";
import { alertRulesRepo, sqliteAlertRulesStore } from "../../store/repos/alert-rules.ts";
import { incidentsRepo, sqliteIncidentsStore } from "../../store/repos/incidents.ts";
import { metricsRepo } from "../../store/repos/metrics.ts";
import { statusRollupsRepo } from "../../store/repos/status-rollups.ts";
import type { Project } from "../../store/repos/projects.ts";
import { postgresAlertRules, postgresBuiltInStates, postgresIncidents, scopedMinutesIn } from "../../store/postgres/alerts.ts";
import type { LeaderJob } from "../../store/postgres/leader.ts";
import { postgresStatusRollups, statusRollupJob } from "../../store/postgres/status.ts";
import type { SharedState } from "../../store/shared.ts";
import type { EmitEvent } from "../webhooks/emitter.ts";
import { AlertRules } from "./alert-rules.ts";
import { budgetUseOf, sharedBudgetUseOf } from "./budget-use.ts";
import { BuiltInRules } from "./built-in.ts";
import { ScopedMinuteCache } from "./scoped-minutes.ts";

export interface AlertInputs {
  billing: Billing;
  project: (id: string) => Project | null;
  /** Enabled providers, each watched by the built-in rules. */
  providers: () => string[];
  emit: EmitEvent;
  clock: Clock;
  intervalMs: number;
  requestListeners: Array<(row: RequestRecord) => void>;
  onError: (err: unknown, context: string) => void;
}

export function buildAlertRules(db: Database, i: AlertInputs): AlertRules {
  const metrics = metricsRepo(db);
  const status = statusRollupsRepo(db);
  const rules = alertRulesRepo(db);
  const builtIn = new BuiltInRules(async (component, from, to) => status.totals(component, from, to), i.providers);
  return new AlertRules({
    rules: sqliteAlertRulesStore(rules),
    incidents: sqliteIncidentsStore(incidentsRepo(db)),
    extraPasses: [builtIn.evaluate],
    projectTotals: (projectId, from, to) => metrics.totals(projectId, from, to),
    budgetUse: budgetUseOf(i.billing, i.project, i.clock),
    emit: i.emit,
    clock: i.clock,
    intervalMs: i.intervalMs,
    scoped: { kind: "listeners", requestListeners: i.requestListeners, recent: rules.recentRequests },
    onError: i.onError,
    projectOfNow: (id) => rules.projectOf(id),
  });
}

/** Multi-instance: rules, incidents and built-in state in PostgreSQL; project totals from every
 * instance's rollups, scoped rules from the shared request log, budgets from the spend counters. No
 * timer: the leader evaluates. */
export function buildSharedAlertRules(shared: SharedState, i: AlertInputs): AlertRules {
  const pool = { pg: shared.pg };
  const status = postgresStatusRollups(pool);
  const builtIn = new BuiltInRules((component, from, to) => status.totals(component, from, to), i.providers);
  const scoped = new ScopedMinuteCache((projectId, scope, from, to) => scopedMinutesIn(shared.pg, projectId, scope, from, to));
  return new AlertRules({
    rules: postgresAlertRules(pool),
    incidents: postgresIncidents(pool),
    extraPasses: [builtIn.evaluate],
    projectTotals: (projectId, from, to) => shared.logs.totals(projectId, from, to),
    budgetUse: sharedBudgetUseOf(shared.pg, i.project, i.clock),
    emit: i.emit,
    clock: i.clock,
    intervalMs: i.intervalMs,
    scoped: { kind: "query", totals: (rule, from, to, now) => scoped.totals(rule, from, to, now) },
    onError: i.onError,
  });
}

/** How often the leader rebuilds the last minutes' status rollups (each of its rounds, 5 s). */
export const STATUS_ROLLUP_EVERY_MS = 4_000;

/** The leader's monitoring jobs: status rollups first, so the built-in rules read them fresh; then one
 * evaluation pass whose state, incidents and built-in state commit with the leader's fence. */
export function monitoringLeaderJobs(alerts: AlertRules, intervalMs: number): LeaderJob[] {
  return [
    statusRollupJob(STATUS_ROLLUP_EVERY_MS),
    {
      name: "alert evaluation",
      everyMs: intervalMs,
      run: (tx, now) => alerts.evaluate({
        rules: postgresAlertRules({ tx }),
        incidents: postgresIncidents({ tx }),
        builtInStates: postgresBuiltInStates({ tx }),
        // One rule (or the built-in pass) failing rolls back its own writes only; the rest commit.
        each: async (work) => void (await tx.savepoint((sp) => work({ rules: postgresAlertRules({ tx: sp }), incidents: postgresIncidents({ tx: sp }), builtInStates: postgresBuiltInStates({ tx: sp }) }))),
      }, now),
    },
  ];
}
