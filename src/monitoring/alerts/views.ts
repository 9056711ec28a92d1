// What the admin API and the dashboard show of rules and incidents (docs/monitoring.md "Alert rules",
// "Incidents"), and the data of incident events (docs/webhooks.md); timestamps ISO 8601.
import type { IncidentRow } from "../../store/repos/incidents.ts";
import type { StoredAlertRule } from "../../store/repos/alert-rules.ts";
import type { AlertRule } from "./rule.ts";
import { initialAlertState, type AlertState, type AlertStatus } from "./state-machine.ts";

export type AlertRuleView = { object: "alert_rule"; id: string; project_id: string } & AlertRule & {
  state: AlertStatus;
  created_at: string;
  updated_at: string;
};

export interface IncidentView {
  object: "incident";
  id: string;
  rule_id: string;
  rule_name: string;
  status: "opened" | "resolved";
  severity: string;
  metric: string;
  threshold: number;
  window: string;
  opened_at: string;
  resolved_at: string | null;
  peak_value: number | null;
  last_value: number | null;
}

/** A built-in provider rule's incident, for the status page (no project, a component instead). */
export interface BuiltInIncident {
  id: string;
  component: string;
  rule_name: string;
  severity: string;
  metric: string;
  opened_at: number;
  resolved_at: number | null;
}

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

export const ruleOf = (r: StoredAlertRule): AlertRule => JSON.parse(r.rule) as AlertRule;
export const stateOf = (r: StoredAlertRule): AlertState => (r.state ? (JSON.parse(r.state) as AlertState) : initialAlertState());

export function alertRuleView(r: StoredAlertRule): AlertRuleView {
  return {
    object: "alert_rule", id: r.id, project_id: r.projectId, ...ruleOf(r), state: stateOf(r).status,
    created_at: iso(r.createdAt), updated_at: iso(r.updatedAt),
  };
}

export function incidentView(i: IncidentRow): IncidentView {
  return {
    object: "incident", id: i.id, rule_id: i.ruleId, rule_name: i.ruleName, status: i.status, severity: i.severity,
    metric: i.metric, threshold: i.threshold, window: i.window, opened_at: iso(i.openedAt), resolved_at: isoOrNull(i.resolvedAt),
    peak_value: i.peakValue, last_value: i.lastValue,
  };
}

export const builtInIncident = (i: IncidentRow): BuiltInIncident => ({
  id: i.id, component: i.component ?? "", rule_name: i.ruleName, severity: i.severity, metric: i.metric,
  opened_at: i.openedAt, resolved_at: i.resolvedAt,
});

/** `data` of incident.opened and incident.resolved (docs/webhooks.md "Event types"). */
export function incidentEventData(i: IncidentRow, value: number | null) {
  return {
    incident_id: i.id, rule_id: i.ruleId, rule_name: i.ruleName, severity: i.severity, metric: i.metric, value,
    threshold: i.threshold, window: i.window, opened_at: iso(i.openedAt), resolved_at: isoOrNull(i.resolvedAt),
  };
}
