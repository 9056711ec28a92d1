// Audit log: who did what, when and from where (docs/dashboard.md "Audit log"), newest first with
// cursor paging. The operator sees the selected project's entries or all; a project needs plan business.
import { getJson, session } from "../api.ts";
import { href, query, setQuery } from "../router.ts";
import type { AuditEntry, List, ProjectSummary } from "../types.ts";
import { ErrorAlert, Loading, time, useLoad } from "../components/load.tsx";
import { Pager } from "../components/pager.tsx";
import "../styles/requests.css";
import "../styles/projects.css";

const PAGE_SIZE = 50;
/** The API's own 403 message (src/dashboard/audit-routes.ts). */
const NEEDS_BUSINESS = "The audit log needs plan business.";

function actor(a: AuditEntry["actor"]): string {
  const who = a.email ?? a.id;
  return who ? `${a.type.replace(/_/g, " ")}: ${who}` : a.type.replace(/_/g, " ");
}

function details(d: Record<string, unknown>): string {
  const s = JSON.stringify(d);
  return s === "{}" ? "–" : s;
}

export function AuditPage() {
  const q = query.value;
  const operator = session.value?.role === "operator";
  const all = operator && q.get("audit") === "all";
  const params = { project: all ? null : q.get("project"), after: q.get("after"), limit: PAGE_SIZE };
  const page = useLoad(async () => {
    // A project below plan business is told so without asking: a 403 would reach the browser's console.
    if (!operator) {
      const own = await getJson<List<ProjectSummary>>("/projects");
      if (own.data[0]?.plan !== "business") throw new Error(NEEDS_BUSINESS);
    }
    return getJson<List<AuditEntry>>("/audit", params);
  }, JSON.stringify(params));
  const rows = page.data?.data ?? [];
  return (
    <section class="audit-page">
      <h1>Audit log</h1>
      <div class="toolbar">
        {operator && (
          <label class="inline-label">Show
            <select aria-label="Show" value={all ? "all" : "project"} onChange={(e) => setQuery({ audit: e.currentTarget.value === "all" ? "all" : null, after: null })}>
              <option value="project">This project</option>
              <option value="all">All projects and sign-ins</option>
            </select>
          </label>
        )}
        <span class="spacer" />
        <Pager firstHref={params.after ? href("/audit", { audit: all ? "all" : null }) : null} page={page.data} />
      </div>
      <ErrorAlert message={page.error} />
      {page.loading && <Loading what="the audit log" />}
      {page.data && (
        <div class="table-wrap">
          <table class="log-table">
            <caption class="visually-hidden">Audit log entries</caption>
            <thead>
              <tr>{["Time (UTC)", "Actor", "Action", "Project", "Target", "Outcome", "Source IP", "Details"].map((c) => <th key={c} scope="col">{c}</th>)}</tr>
            </thead>
            <tbody>
              {rows.map((e) => (
                <tr key={e.id} class={e.outcome === "failure" ? "failed" : undefined}>
                  <td>{time(e.created_at)}</td>
                  <td>{actor(e.actor)}</td>
                  <td class="mono">{e.action}</td>
                  <td class="mono">{e.project_id ?? "–"}</td>
                  <td class="mono">{e.target ?? "–"}</td>
                  <td>
                    <span class={e.outcome === "success" ? "badge badge-ok" : "badge badge-err"}>{e.outcome}</span>
                    {e.status !== null && <span class="muted"> {e.status}</span>}
                  </td>
                  <td class="mono">{e.source_ip ?? "–"}</td>
                  <td class="details" title={details(e.details)}>{details(e.details)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {rows.length === 0 && <p class="empty">No entries yet.</p>}
        </div>
      )}
    </section>
  );
}
