// Monitoring (/monitoring): provider and model health as the circuit breakers see it, one row each;
// alert rules and incidents are not here yet.
import { getJson } from "../api.ts";
import { useLoad } from "../components/load.tsx";
import { query } from "../router.ts";
import type { MonitoringView, ProviderHealth } from "../types.ts";

const STATE_BADGE: Record<string, string> = { closed: "badge badge-ok", half_open: "badge badge-warn", open: "badge badge-err" };
const STATE_TEXT: Record<string, string> = { closed: "healthy", half_open: "probing", open: "open (skipped)" };

/** Column headers from the API's snake_case field names. */
const header = (field: string) => {
  const words = field.replace(/_ms$/, " (ms)").replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
};

function cell(v: unknown): string {
  if (v === null || v === undefined) return "–";
  if (typeof v === "number") return Number.isInteger(v) ? v.toLocaleString("en-US") : String(Math.round(v * 1000) / 1000);
  if (typeof v === "string" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

export function MonitoringPage() {
  const project = query.value.get("project");
  const res = useLoad(() => getJson<MonitoringView>("/monitoring", { project }), `${project}`);
  const m = res.data;
  return (
    <>
      <h1>Monitoring</h1>
      <p class="muted">
        Provider health as gw's circuit breakers see it from the requests it forwards: a provider or model whose
        attempts keep failing is opened and skipped by routing, then probed again after a cool-down. Alert rules and
        incidents come with the monitoring work that follows; this page shows the live state only.
      </p>
      {res.error ? <p role="alert" class="alert">{res.error}</p> : null}
      {res.loading && !m ? <p class="loading">Loading provider health…</p> : null}
      {m ? <HealthTable rows={m.providers} /> : null}
    </>
  );
}

function HealthTable({ rows }: { rows: ProviderHealth[] }) {
  if (rows.length === 0) return <p class="empty panel">No provider has been called yet.</p>;
  // Every field any row has, beyond the two fixed columns, in first-seen order.
  const extra = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((k) => k !== "provider" && k !== "state" && k !== "object");
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Provider</th>
            <th scope="col">State</th>
            {extra.map((k) => (
              <th scope="col" key={k}>
                {header(k)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={`${r.provider}|${i}`}>
              <td class="mono">{r.provider}</td>
              <td>
                <span class={STATE_BADGE[r.state] ?? "badge"}>{STATE_TEXT[r.state] ?? r.state}</span>
              </td>
              {extra.map((k) => (
                <td key={k}>{cell(r[k])}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
