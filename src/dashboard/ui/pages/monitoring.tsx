// Monitoring (/monitoring): provider and model health as the circuit breakers see it, one row each; then
// the selected project's webhook endpoints, alert rules and incidents (docs/dashboard.md "Pages").
import { getJson, session } from "../api.ts";
import { AlertRulesPanel, IncidentsPanel } from "../components/alert-rules-panel.tsx";
import { useLoad } from "../components/load.tsx";
import { WebhooksPanel } from "../components/webhooks-panel.tsx";
import { count, fraction, ms } from "../format.ts";
import { query } from "../router.ts";
import type { MonitoringView, ProviderHealth } from "../types.ts";

const STATE_BADGE: Record<ProviderHealth["state"], string> = { closed: "badge badge-ok", half_open: "badge badge-warn", open: "badge badge-err" };
const STATE_TEXT: Record<ProviderHealth["state"], string> = { closed: "healthy", half_open: "probing", open: "open: skipped" };

const when = (iso: string | null) => (iso === null ? "–" : new Date(iso).toLocaleString("en-GB"));

export function MonitoringPage() {
  const project = query.value.get("project");
  const res = useLoad(() => getJson<MonitoringView>("/monitoring", { project }), `${project}`);
  const m = res.data;
  const operator = session.value?.role === "operator";
  const projectId = project ?? session.value?.project_id ?? "";
  return (
    <>
      <h1>Monitoring</h1>
      <p class="muted">
        Provider health as gw's circuit breakers see it from the attempts it makes with its own provider keys: a provider
        or model whose attempts keep failing is opened and skipped by routing, then probed again after a cool-down. Below:
        this project's webhook endpoints, alert rules and incidents{operator ? "" : " (read-only: the operator manages them)"}.
      </p>
      {res.error ? <p role="alert" class="alert">{res.error}</p> : null}
      {res.loading && !m ? <p class="loading">Loading provider health…</p> : null}
      {m ? <HealthTable rows={m.providers} /> : null}
      {projectId && !res.error && <>
        <IncidentsPanel key={`i${projectId}`} projectId={projectId} />
        <AlertRulesPanel key={`r${projectId}`} projectId={projectId} operator={operator} />
        <WebhooksPanel key={`w${projectId}`} projectId={projectId} operator={operator} />
      </>}
    </>
  );
}

function HealthTable({ rows }: { rows: ProviderHealth[] }) {
  if (rows.length === 0) return <p class="empty panel">No provider has been called since gw started.</p>;
  // Sample counts reflect every project's traffic: the API gives them to the operator only.
  const operator = rows.some((r) => r.samples !== undefined);
  const sorted = rows.slice().sort((a, b) => a.provider.localeCompare(b.provider) || (a.model ?? "").localeCompare(b.model ?? ""));
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Provider</th>
            <th scope="col">Model</th>
            <th scope="col">State</th>
            <th scope="col" class="num">Error rate</th>
            <th scope="col" class="num">Latency</th>
            <th scope="col">Opened at</th>
            {operator ? <th scope="col" class="num">Samples</th> : null}
            {operator ? <th scope="col" class="num">Failures in a row</th> : null}
          </tr>
        </thead>
        <tbody>
          {sorted.map((r) => (
            <tr key={`${r.provider}|${r.model ?? ""}`}>
              <td class="mono">{r.provider}</td>
              <td class="mono">{r.model ?? <span class="muted">all models</span>}</td>
              <td>
                <span class={STATE_BADGE[r.state] ?? "badge"}>{STATE_TEXT[r.state] ?? r.state}</span>
              </td>
              <td class="num">{fraction(r.error_rate)}</td>
              <td class="num">{r.latency_ms === null ? "–" : `${ms(r.latency_ms)} ms`}</td>
              <td>{when(r.opened_at)}</td>
              {operator ? <td class="num">{count(r.samples)}</td> : null}
              {operator ? <td class="num">{count(r.consecutive_failures)}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
