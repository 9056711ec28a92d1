// Requests: the request log of the project, every logged field but content, filtered by the URL's
// query (docs/dashboard.md "Pages"), cursor paging, and CSV / NDJSON export of the filtered rows.
import { apiUrl, getJson } from "../api.ts";
import { href, query } from "../router.ts";
import type { List, LogEntry } from "../types.ts";
import { currentFilters, FilterForm } from "../components/filters.tsx";
import { count, dollars } from "../format.ts";
import { duration, ErrorAlert, Loading, time, useLoad } from "../components/load.tsx";
import { Pager } from "../components/pager.tsx";
import "../styles/requests.css";

const PAGE_SIZE = 50;

function Row({ r }: { r: LogEntry }) {
  const model = r.requested_model && r.selected_model && r.requested_model !== r.selected_model
    ? `${r.requested_model} → ${r.selected_model}` : (r.selected_model ?? r.requested_model ?? "–");
  return (
    <tr class={r.status >= 400 ? "failed" : undefined}>
      <td class="id">
        <a href={href(`/requests/${encodeURIComponent(r.request_id)}`)}>{r.request_id}</a>
        {r.test && <span class="badge badge-test">test</span>}
      </td>
      <td class="nowrap">{time(r.created_at)}</td>
      <td class="num">{r.status}</td>
      <td class="model">{model}</td>
      <td>{r.provider ?? "–"}</td>
      <td>{r.cache ?? "–"}</td>
      <td class="num">{duration(r.latency_ms)}</td>
      <td class="num">{duration(r.ttft_ms)}</td>
      <td class="num">{count(r.input_tokens)} / {count(r.output_tokens)}</td>
      <td class="num">{dollars(r.cost)}</td>
      <td class="num">{dollars(r.saved)}</td>
      <td>{r.error ? <span title={r.error.message ?? undefined}>{r.error.code}{r.error_category ? ` (${r.error_category})` : ""}</span> : "–"}</td>
      <td>{r.task ? `${r.task}${r.task_subtype ? ` / ${r.task_subtype}` : ""}` : "–"}</td>
      <td>{r.endpoint}</td>
      <td class="num">{r.fallbacks}</td>
      <td>{r.workflow_id ? `${r.workflow_id}${r.step ? ` / ${r.step}` : ""}` : "–"}</td>
      <td>{r.tags.length ? r.tags.map((t) => <span key={t} class="badge">{t}</span>) : "–"}</td>
      <td>{r.stream ? "yes" : "no"}</td>
      <td class="trace">
        <a href={href("/requests", { trace_id: r.trace_id })} title="Show the requests of this trace">{r.trace_id}</a>
      </td>
    </tr>
  );
}

// The columns one scans most come first; the rest scroll into view at 1280 px.
const COLUMNS = [
  "Request", "Time (UTC)", "Status", "Model (requested → selected)", "Provider", "Cache", "Latency", "TTFT", "Tokens in / out",
  "Cost", "Saved", "Error", "Task", "Endpoint", "Fallbacks", "Workflow / step", "Tags", "Stream", "Trace",
];
const NUMERIC = new Set(["Status", "Latency", "TTFT", "Tokens in / out", "Cost", "Saved", "Fallbacks"]);

export function RequestsPage() {
  const q = query.value;
  const filters = currentFilters(q);
  const project = q.get("project");
  const after = q.get("after");
  const params = { ...filters, project, after, limit: PAGE_SIZE };
  const page = useLoad(() => getJson<List<LogEntry>>("/requests", params), JSON.stringify(params));
  const exportUrl = (format: "csv" | "ndjson") => apiUrl("/requests/export", { format, ...filters, project });
  const rows = page.data?.data ?? [];
  const filtered = Object.keys(filters).length > 0;

  return (
    <section class="requests-page">
      <h1>Requests</h1>
      <FilterForm />
      <div class="toolbar">
        <a class="btn" href={exportUrl("csv")} download>Export CSV</a>
        <a class="btn" href={exportUrl("ndjson")} download>Export NDJSON</a>
        <span class="spacer" />
        <Pager firstHref={after ? href("/requests", { ...filters }) : null} page={page.data} />
      </div>
      <ErrorAlert message={page.error} />
      {page.loading && <Loading what="requests" />}
      {page.data && (
        <div class="table-wrap">
          <table class="log-table">
            <caption class="visually-hidden">Request log{filtered ? ", filtered" : ""}</caption>
            <thead>
              <tr>{COLUMNS.map((c) => <th key={c} scope="col" class={NUMERIC.has(c) ? "num" : undefined}>{c}</th>)}</tr>
            </thead>
            <tbody>{rows.map((r) => <Row key={r.request_id} r={r} />)}</tbody>
          </table>
          {rows.length === 0 && (
            <p class="empty">
              {page.data.has_more
                ? "No matching request in this stretch of the log; Next page searches further back."
                : filtered ? "No request matches these filters." : "No requests yet."}
            </p>
          )}
        </div>
      )}
    </section>
  );
}
