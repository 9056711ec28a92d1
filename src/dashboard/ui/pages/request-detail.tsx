// Request detail: one logged request with its trace as a waterfall, the routing candidates, the
// attempts and fallbacks, the cache decision, versions and gw's overhead (docs/api.md "Request detail").
import { useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import { getJson } from "../api.ts";
import { href, query } from "../router.ts";
import type { RequestDetail, Trace, TraceAttempt, TraceCandidate } from "../types.ts";
import { count, dollars } from "../format.ts";
import { duration, ErrorAlert, errorText, Loading, time, useLoad } from "../components/load.tsx";
import { Waterfall } from "../components/waterfall.tsx";
import "../styles/detail.css";

const show = (v: unknown): string =>
  v === null || v === undefined || v === "" ? "–" : typeof v === "object" ? JSON.stringify(v) : String(v);

function Facts({ items }: { items: [string, ComponentChildren][] }) {
  return (
    <dl class="facts">
      {items.map(([k, v]) => <div key={k}><dt>{k}</dt><dd>{v}</dd></div>)}
    </dl>
  );
}

/** Candidates shown before `Show all`: the catalog can put dozens in one trace. */
const FIRST_CANDIDATES = 10;

function Candidates({ list: all }: { list: TraceCandidate[] }) {
  const [full, setFull] = useState(false);
  const list = full ? all : all.slice(0, FIRST_CANDIDATES);
  const excluded = all.filter((c) => c.excluded || c.below_required_quality).length;
  return (
    <>
      <table class="detail-table">
        <caption>Routing candidates ({all.length})</caption>
        <thead><tr><th scope="col">Rank</th><th scope="col">Model</th><th scope="col">Provider</th><th scope="col">Score</th><th scope="col">Quality</th><th scope="col">Excluded because</th></tr></thead>
        <tbody>
          {list.map((c, i) => (
            <tr key={`${c.model}-${i}`} class={c.excluded ? "excluded" : undefined}>
              <td class="num">{show(c.rank ?? (c.excluded ? null : i))}</td>
              <td>{c.model}</td>
              <td>{show(c.provider)}</td>
              <td class="num">{typeof c.score === "number" ? c.score.toFixed(3) : "–"}</td>
              <td class="num">{typeof c.quality === "number" ? c.quality.toFixed(3) : "–"}</td>
              <td>{c.excluded ?? (c.below_required_quality ? "below the required quality" : "–")}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {all.length > FIRST_CANDIDATES && (
        <button type="button" class="btn btn-quiet more" onClick={() => setFull(!full)}>
          {full ? `Show the first ${FIRST_CANDIDATES} candidates` : `Show all ${all.length} candidates (${excluded} excluded)`}
        </button>
      )}
    </>
  );
}

function Attempts({ list }: { list: TraceAttempt[] }) {
  return (
    <table class="detail-table">
      <caption>Attempts ({list.length > 1 ? `${list.length - 1} fallback or retry` : "no fallback"})</caption>
      <thead><tr><th scope="col">#</th><th scope="col">Model</th><th scope="col">Provider</th><th scope="col">Status</th><th scope="col">Error</th><th scope="col">Failure class</th><th scope="col">Upstream status</th><th scope="col">Duration</th></tr></thead>
      <tbody>
        {list.map((a, i) => (
          <tr key={i} class={a.error_code ? "failed" : undefined}>
            <td class="num">{i + 1}</td>
            <td>{a.model}{a.byok ? " (own key)" : ""}</td>
            <td>{a.provider}</td>
            <td>{show(a.status)}</td>
            <td>{show(a.error_code)}</td>
            <td>{show(a.failure_class)}</td>
            <td>{show(a.upstream_status)}</td>
            <td class="num">{duration(a.duration_ms)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function TraceSections({ trace }: { trace: Trace }) {
  const reasons = [trace.reason, ...(trace.reasons ?? [])].filter((r): r is string => typeof r === "string" && r !== "");
  return (
    <>
      <section aria-labelledby="wf-h">
        <h2 id="wf-h">Waterfall</h2>
        {trace.spans && trace.spans.length > 0 ? <Waterfall spans={trace.spans} /> : <p class="empty">No spans recorded.</p>}
      </section>
      <section aria-labelledby="routing-h">
        <h2 id="routing-h">Routing</h2>
        {reasons.length > 0 && <ul class="reasons">{reasons.map((r, i) => <li key={i}>{r}</li>)}</ul>}
        {trace.candidates?.length ? <Candidates list={trace.candidates} /> : <p class="empty">No candidates recorded (an explicit model, or the request ended before routing).</p>}
        {trace.attempts?.length ? <Attempts list={trace.attempts} /> : <p class="empty">No provider was called.</p>}
      </section>
      <section aria-labelledby="cache-h">
        <h2 id="cache-h">Cache decision</h2>
        {trace.cache ? (
          <Facts items={[
            ["Result", show(trace.cache.result)], ["Kind", show(trace.cache.kind)],
            ["Similarity", typeof trace.cache.similarity === "number" ? trace.cache.similarity.toFixed(4) : "–"],
            ["Miss reason", show(trace.cache.miss_reason)],
          ]} />
        ) : <p class="empty">The cache was not consulted.</p>}
      </section>
      {trace.error && (
        <section aria-labelledby="error-h">
          <h2 id="error-h">Error</h2>
          <Facts items={Object.entries(trace.error).map(([k, v]): [string, ComponentChildren] => [k.replace(/_/g, " "), show(v)])} />
        </section>
      )}
    </>
  );
}

function CopyTrace({ detail }: { detail: RequestDetail }) {
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const copy = () => {
    navigator.clipboard.writeText(JSON.stringify(detail, null, 2)).then(
      () => setNote({ ok: true, text: "Trace JSON copied to the clipboard." }),
      (e: unknown) => setNote({ ok: false, text: `Could not copy: ${errorText(e)}` }),
    );
  };
  return (
    <>
      <button type="button" class="btn" onClick={copy}>Copy trace JSON</button>
      <span role="status" class={note?.ok ? "status copy-note" : "copy-note"}>{note?.ok ? note.text : ""}</span>
      {note && !note.ok && <span role="alert" class="alert">{note.text}</span>}
    </>
  );
}

export function RequestDetailPage({ requestId }: { requestId: string }) {
  const project = query.value.get("project");
  const got = useLoad(() => getJson<RequestDetail>(`/requests/${encodeURIComponent(requestId)}`, { project }), `${requestId} ${project}`);
  const d = got.data;
  return (
    <section class="detail-page">
      {/* The h1 is the id alone (the browser tests read it); the test badge sits beside it. */}
      <div class="title-row">
        <h1>{requestId}</h1>
        {d?.test && <span class="badge badge-test">test</span>}
      </div>
      <ErrorAlert message={got.error} />
      {got.loading && !d && <Loading what="the request" />}
      {d && (
        <>
          <div class="toolbar">
            <a href={href("/requests", { trace_id: d.trace_id })}>All requests of this trace</a>
            <CopyTrace detail={d} />
          </div>
          <p class="selected"><span class="label">Selected model</span> <strong>{d.selected_model ?? "none"}</strong>
            {d.provider && <> at <strong>{d.provider}</strong></>}</p>
          <Facts items={[
            ["Time (UTC)", time(d.created_at)], ["Endpoint", d.endpoint], ["Status", String(d.status)],
            ["Error", d.error ? `${d.error.code}${d.error_category ? ` (${d.error_category})` : ""}` : "–"],
            ["Requested model", show(d.requested_model)], ["Task", d.task ? `${d.task}${d.task_subtype ? ` / ${d.task_subtype}` : ""}` : "–"],
            ["Tokens in / out", `${count(d.input_tokens)} / ${count(d.output_tokens)}`], ["Cost", dollars(d.cost)], ["Saved", dollars(d.saved)],
            ["Cache", show(d.cache)], ["Latency", duration(d.latency_ms)], ["TTFT", duration(d.ttft_ms)], ["gw overhead", duration(d.overhead_ms)],
            ["Fallbacks", String(d.fallbacks)], ["Stream", d.stream ? "yes" : "no"],
            ["Workflow / step", d.workflow_id ? `${d.workflow_id}${d.step ? ` / ${d.step}` : ""}` : "–"],
            ["Tags", d.tags.length ? d.tags.join(", ") : "–"], ["Trace id", d.trace_id],
          ]} />
          {d.trace === null && <p class="empty">No trace is stored for this request (the project's trace storage budget was full).</p>}
          {d.trace?.sampled === false && <p class="empty">This request's trace was not sampled (trace_sample_rate, or the test-key limit); its log row above is complete.</p>}
          {d.trace && d.trace.sampled !== false && <TraceSections trace={d.trace} />}
          <section aria-labelledby="versions-h">
            <h2 id="versions-h">Versions</h2>
            {d.versions ? <Facts items={Object.entries(d.versions).map(([k, v]): [string, ComponentChildren] => [k.replace(/_/g, " "), show(v)])} /> : <p class="empty">Not recorded.</p>}
          </section>
        </>
      )}
    </section>
  );
}
