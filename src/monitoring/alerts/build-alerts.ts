// AlertRules over its repos, as buildDeps makes it (docs/monitoring.md "Alert rules").
import type { Database } from "bun:sqlite";
import type { Billing } from "../../billing/billing.ts";
import type { Clock } from "../../lib/clock.ts";
import type { RequestRecord } from "../../store/request-record.ts";
import { alertRulesRepo } from "../../store/repos/alert-rules.ts";
import { incidentsRepo } from "../../store/repos/incidents.ts";
import { metricsRepo } from "../../store/repos/metrics.ts";
import { statusRollupsRepo } from "../../store/repos/status-rollups.ts";
import type { Project } from "../../store/repos/projects.ts";
import type { EmitEvent } from "../webhooks/emitter.ts";
import { AlertRules } from "./alert-rules.ts";
import { budgetUseOf } from "./budget-use.ts";
import { BuiltInRules } from "./built-in.ts";

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
  const incidents = incidentsRepo(db);
  const builtIn = new BuiltInRules(incidents, (component, from, to) => status.totals(component, from, to), i.providers);
  return new AlertRules({
    rules: alertRulesRepo(db),
    incidents,
    extraPasses: [builtIn.evaluate],
    projectTotals: (projectId, from, to) => metrics.totals(projectId, from, to),
    budgetUse: budgetUseOf(i.billing, i.project, i.clock),
    emit: i.emit,
    clock: i.clock,
    intervalMs: i.intervalMs,
    requestListeners: i.requestListeners,
    onError: i.onError,
  });
}
