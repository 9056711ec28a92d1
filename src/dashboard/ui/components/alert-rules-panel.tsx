// A project's alert rules and incidents on the Monitoring page (docs/monitoring.md "Alert rules"): the
// rules with their current state for everyone with scope `requests`; the form and actions for the operator.
import { useState } from "preact/hooks";
import { getJson, send } from "../api.ts";
import type { AlertRuleFields, AlertRuleView, Incident, List } from "../types.ts";
import { ConfirmDialog } from "./confirm-dialog.tsx";
import { ErrorAlert, errorText, Loading, Options, time, useLoad } from "./load.tsx";

const enc = encodeURIComponent;
const METRICS = ["error_rate", "availability", "latency_p95", "latency_p99", "ttft_p95", "fallback_rate", "rate_limited_rate", "cost", "cache_hit_rate", "requests", "budget_used_pct"];
const WINDOWS = ["1m", "5m", "15m", "30m", "1h", "6h", "24h"];
const SEVERITIES = ["info", "warning", "critical"];
const SCOPES = ["model", "provider", "task", "tag"] as const;
const STATE_BADGE: Record<string, string> = { normal: "badge badge-ok", pending: "badge badge-warn", firing: "badge badge-err", recovering: "badge badge-warn" };
const NEW: AlertRuleFields = { name: "", metric: "error_rate", scope: {}, op: "gt", threshold: 5, window: "5m", min_requests: 10, for: "1m", keep_firing_for: "0s", severity: "warning", enabled: true };

const condition = (r: AlertRuleFields) =>
  `${r.metric} ${r.op === "gt" ? ">" : "<"} ${r.threshold} over ${r.window}, for ${r.for}, at least ${r.min_requests} requests`;
const value = (n: number | null) => (n === null ? "–" : String(Math.round(n * 1000) / 1000));

function RuleForm({ rule, onSave, onCancel }: { rule: AlertRuleView | null; onSave: (body: AlertRuleFields) => Promise<boolean>; onCancel: () => void }) {
  const r = rule ?? NEW;
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    const s = (k: string) => String(f.get(k) ?? "").trim();
    const scope: AlertRuleFields["scope"] = {};
    for (const k of SCOPES) if (s(k)) scope[k] = s(k);
    const body: AlertRuleFields = {
      name: s("name"), metric: s("metric"), scope, op: s("op") === "lt" ? "lt" : "gt", threshold: Number(s("threshold")), window: s("window"),
      min_requests: Number(s("min_requests")), for: s("for"), keep_firing_for: s("keep_firing_for"), severity: s("severity"), enabled: f.get("enabled") !== null,
    };
    if (await onSave(body) && !rule) form.reset();
  };
  return (
    <form onSubmit={submit} aria-label={rule ? `Edit rule ${rule.name}` : "New alert rule"} key={rule?.id ?? "new"}>
      <div class="form-grid projects-page">
        <label>Rule name<input name="name" required maxLength={200} defaultValue={r.name} /></label>
        <label>Metric<select name="metric"><Options list={METRICS} current={r.metric} /></select></label>
        <label>Condition<select name="op"><Options list={[["gt", "above"], ["lt", "below"]]} current={r.op} /></select></label>
        <label>Threshold<input name="threshold" type="number" step="any" min="0" required defaultValue={String(r.threshold)} /></label>
        <label>Window<select name="window"><Options list={WINDOWS} current={r.window} /></select></label>
        <label>Minimum requests<input name="min_requests" type="number" min="0" step="1" required defaultValue={String(r.min_requests)} /></label>
        <label>For<input name="for" required defaultValue={r.for} placeholder="0s, 2m, 1h30m" /></label>
        <label>Keep firing for<input name="keep_firing_for" required defaultValue={r.keep_firing_for} /></label>
        <label>Severity<select name="severity"><Options list={SEVERITIES} current={r.severity} /></select></label>
        {SCOPES.map((k) => <label key={k}>Only {k}<input name={k} defaultValue={r.scope[k] ?? ""} placeholder="any" /></label>)}
        <label class="check"><input type="checkbox" name="enabled" defaultChecked={r.enabled} /> Enabled</label>
      </div>
      <div class="row">
        <button type="submit" class="btn btn-primary">{rule ? "Save rule" : "Create rule"}</button>
        {rule && <button type="button" class="btn" onClick={onCancel}>Cancel</button>}
      </div>
    </form>
  );
}

export function AlertRulesPanel({ projectId, operator }: { projectId: string; operator: boolean }) {
  const rules = useLoad(() => getJson<List<AlertRuleView>>("/monitoring/alert-rules", { project: projectId }), projectId);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<AlertRuleView | null>(null);
  const [deleting, setDeleting] = useState<AlertRuleView | null>(null);
  const act = async (method: "POST" | "PATCH" | "DELETE", path: string, body?: unknown): Promise<boolean> => {
    setError(null);
    try {
      await send(method, path, body, { project: projectId });
      rules.reload();
      return true;
    } catch (e) {
      setError(errorText(e));
      return false;
    }
  };
  const save = async (body: AlertRuleFields) => {
    const ok = editing ? await act("PATCH", `/monitoring/alert-rules/${enc(editing.id)}`, body) : await act("POST", "/monitoring/alert-rules", body);
    if (ok) setEditing(null);
    return ok;
  };
  const rows = rules.data?.data ?? [];
  return (
    <section class="panel" aria-labelledby="rules-h">
      <h2 id="rules-h">Alert rules</h2>
      <ErrorAlert message={error ?? rules.error} />
      {rules.loading && !rules.data ? <Loading what="alert rules" /> : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Alert rules</caption>
            <thead><tr><th scope="col">Rule</th><th scope="col">Condition</th><th scope="col">Severity</th><th scope="col">State</th>{operator && <th scope="col">Actions</th>}</tr></thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}>
                  <td>{r.name}</td>
                  <td class="mono">{condition(r)}</td>
                  <td>{r.severity}</td>
                  <td>{r.enabled ? <span class={STATE_BADGE[r.state] ?? "badge"}>{r.state}</span> : <span class="badge">disabled</span>}</td>
                  {operator && <td class="row">
                    <button type="button" class="btn btn-quiet" aria-label={`Edit rule ${r.name}`} onClick={() => { setEditing(r); requestAnimationFrame(() => document.getElementById("rule-form-h")?.scrollIntoView()); }}>Edit</button>
                    <button type="button" class="btn btn-quiet" aria-label={`${r.enabled ? "Disable" : "Enable"} rule ${r.name}`} onClick={() => void act("PATCH", `/monitoring/alert-rules/${enc(r.id)}`, { enabled: !r.enabled })}>{r.enabled ? "Disable" : "Enable"}</button>
                    <button type="button" class="btn btn-quiet danger-text" aria-label={`Delete rule ${r.name}`} onClick={() => setDeleting(r)}>Delete</button>
                  </td>}
                </tr>
              ))}
            </tbody>
          </table>
          {rows.length === 0 && <p class="empty">No alert rule yet.</p>}
        </div>
      )}
      {operator && <><h3 id="rule-form-h">{editing ? `Edit ${editing.name}` : "New rule"}</h3><RuleForm key={editing?.id ?? "new"} rule={editing} onSave={save} onCancel={() => setEditing(null)} /></>}
      <ConfirmDialog open={deleting !== null} title="Delete this rule?" confirmLabel="Delete" danger
        onConfirm={() => { const r = deleting; setDeleting(null); if (r) void act("DELETE", `/monitoring/alert-rules/${enc(r.id)}`); }} onCancel={() => setDeleting(null)}>
        <p>Rule <strong>{deleting?.name}</strong> stops being evaluated; its past incidents stay listed.</p>
      </ConfirmDialog>
    </section>
  );
}

/** Open incidents first, then recent ones (the API answers them in that order). */
export function IncidentsPanel({ projectId }: { projectId: string }) {
  const res = useLoad(() => getJson<List<Incident>>("/monitoring/incidents", { project: projectId }), projectId);
  const rows = res.data?.data ?? [];
  return (
    <section class="panel" aria-labelledby="incidents-h">
      <h2 id="incidents-h">Incidents</h2>
      <ErrorAlert message={res.error} />
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">Incidents</caption>
          <thead><tr><th scope="col">Rule</th><th scope="col">State</th><th scope="col">Severity</th><th scope="col">Metric</th><th scope="col" class="num">Peak</th><th scope="col" class="num">Last</th><th scope="col">Opened (UTC)</th><th scope="col">Resolved (UTC)</th></tr></thead>
          <tbody>
            {rows.map((i) => (
              <tr key={i.id}>
                <td>{i.rule_name}</td>
                <td><span class={i.status === "opened" ? "badge badge-err" : "badge badge-ok"}>{i.status === "opened" ? "open" : "resolved"}</span></td>
                <td>{i.severity}</td>
                <td class="mono">{i.metric} {i.threshold} / {i.window}</td>
                <td class="num">{value(i.peak_value)}</td>
                <td class="num">{value(i.last_value)}</td>
                <td>{time(i.opened_at)}</td>
                <td>{i.resolved_at ? time(i.resolved_at) : "–"}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {!res.loading && rows.length === 0 && <p class="empty">No incident yet.</p>}
      </div>
    </section>
  );
}
