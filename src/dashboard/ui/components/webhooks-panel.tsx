// A project's webhook endpoints on the Monitoring page (docs/dashboard.md "Pages"): everyone with scope
// `requests` sees them and their deliveries; the operator creates, edits, tests, rotates and deletes.
import { useState } from "preact/hooks";
import { getJson, send } from "../api.ts";
import type { List, WebhookDelivery, WebhookEndpoint } from "../types.ts";
import { ConfirmDialog } from "./confirm-dialog.tsx";
import { duration, ErrorAlert, errorText, Loading, time, useLoad } from "./load.tsx";
import "../styles/projects.css";
import "../styles/monitoring.css";

const enc = encodeURIComponent;
/** "a, b" -> ["a", "b"]; empty means every event type (the field is left out). */
const eventList = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/** A secret shown once, with a copy button (the server never shows it again). */
export function OnceSecret({ what, secret, onDone }: { what: string; secret: string; onDone: () => void }) {
  const [note, setNote] = useState("");
  const copy = () => navigator.clipboard.writeText(secret).then(() => setNote("Copied to the clipboard."), (e: unknown) => setNote(`Could not copy: ${errorText(e)}`));
  return (
    <div class="secret-box" role="region" aria-label={what}>
      <p><strong>Copy this secret now: it is shown only once.</strong></p>
      <div class="row">
        <input class="mono secret" readOnly value={secret} aria-label={`${what} secret`} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" class="btn" onClick={() => void copy()}>Copy secret</button>
        <button type="button" class="btn btn-quiet" onClick={onDone}>Done</button>
      </div>
      <span role="status">{note}</span>
    </div>
  );
}

export function WebhooksPanel({ projectId, operator }: { projectId: string; operator: boolean }) {
  const list = useLoad(() => getJson<List<WebhookEndpoint>>("/monitoring/webhooks", { project: projectId }), projectId);
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState("");
  const [shown, setShown] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  const [editing, setEditing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<WebhookEndpoint | null>(null);
  /** One write; its answer may carry a one-time secret; the list reloads after it. */
  const act = async (method: "POST" | "PATCH" | "DELETE", path: string, body?: unknown) => {
    setError(null);
    try {
      const r = await send<Partial<WebhookEndpoint & WebhookDelivery>>(method, path, body, { project: projectId });
      if (typeof r.secret === "string") setSecret(r.secret);
      list.reload();
      return r;
    } catch (e) {
      setError(errorText(e));
      return null;
    }
  };
  const create = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    const events = eventList(String(f.get("events") ?? ""));
    const description = String(f.get("description") ?? "").trim();
    const body = { url: String(f.get("url") ?? "").trim(), ...(events.length ? { events } : {}), ...(description ? { description } : {}) };
    if (await act("POST", `/monitoring/webhooks`, body)) form.reset();
  };
  const test = async (w: WebhookEndpoint) => {
    const d = await act("POST", `/monitoring/webhooks/${enc(w.id)}/test`);
    if (!d) return;
    setNote(`Test sent to ${w.url}: ${d.status_code ?? d.error ?? "no answer"}${d.duration_ms === undefined ? "" : ` in ${duration(d.duration_ms)}`}.`);
    setShown(w.id);
    setRound((r) => r + 1);
  };
  const saveEvents = async (e: Event, w: WebhookEndpoint) => {
    e.preventDefault();
    const events = eventList(String(new FormData(e.currentTarget as HTMLFormElement).get("events") ?? ""));
    if (await act("PATCH", `/monitoring/webhooks/${enc(w.id)}`, { events: events.length ? events : null })) setEditing(null);
  };
  const rows = list.data?.data ?? [];
  return (
    <section class="panel" aria-labelledby="webhooks-h">
      <h2 id="webhooks-h">Webhook endpoints</h2>
      {secret && <OnceSecret what="Webhook signing" secret={secret} onDone={() => setSecret(null)} />}
      {operator && (
        <form onSubmit={create} aria-label="New webhook endpoint" class="row">
          <label class="inline-label">Endpoint URL<input name="url" type="url" required maxLength={2048} placeholder="https://example.com/hooks/gw" /></label>
          <label class="inline-label">Events<input name="events" placeholder="all events" /></label>
          <label class="inline-label">Description<input name="description" maxLength={500} /></label>
          <button type="submit" class="btn btn-primary">Add endpoint</button>
        </form>
      )}
      <ErrorAlert message={error ?? list.error} />
      <p role="status" class="muted">{note}</p>
      {list.loading && !list.data ? <Loading what="webhook endpoints" /> : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Webhook endpoints</caption>
            <thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">State</th><th scope="col">Created (UTC)</th><th scope="col">Actions</th></tr></thead>
            <tbody>
              {rows.map((w) => (
                <tr key={w.id}>
                  <td><span class="mono">{w.url}</span>{w.description && <div class="muted">{w.description}</div>}</td>
                  <td>{editing === w.id ? (
                    <form class="row" onSubmit={(e) => void saveEvents(e, w)} aria-label={`Events of ${w.url}`}>
                      <input name="events" aria-label="Events" defaultValue={w.all_events ? "" : w.events.join(", ")} placeholder="all events" />
                      <button type="submit" class="btn">Save</button>
                    </form>
                  ) : <span class="mono">{w.all_events ? "all" : w.events.join(", ")}</span>}</td>
                  <td>{w.enabled ? <span class="badge badge-ok">enabled</span> : <span class="badge badge-err">disabled{w.disabled_reason ? `: ${w.disabled_reason}` : ""}</span>}</td>
                  <td>{time(w.created_at)}</td>
                  <td class="row">
                    <button type="button" class="btn btn-quiet" onClick={() => setShown(shown === w.id ? null : w.id)}>Deliveries</button>
                    {operator && <>
                      <button type="button" class="btn btn-quiet" onClick={() => void test(w)}>Send test</button>
                      <button type="button" class="btn btn-quiet" onClick={() => void act("PATCH", `/monitoring/webhooks/${enc(w.id)}`, { enabled: !w.enabled })}>{w.enabled ? "Disable" : "Enable"}</button>
                      <button type="button" class="btn btn-quiet" onClick={() => setEditing(editing === w.id ? null : w.id)}>Edit events</button>
                      <button type="button" class="btn btn-quiet" onClick={() => void act("POST", `/monitoring/webhooks/${enc(w.id)}/rotate-secret`)}>Rotate secret</button>
                      <button type="button" class="btn btn-quiet danger-text" aria-label={`Delete endpoint ${w.url}`} onClick={() => setDeleting(w)}>Delete</button>
                    </>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {rows.length === 0 && <p class="empty">No webhook endpoint yet.</p>}
        </div>
      )}
      {shown && rows.some((w) => w.id === shown) && <Deliveries key={`${shown}:${round}`} projectId={projectId} endpointId={shown} operator={operator} />}
      <ConfirmDialog open={deleting !== null} title="Delete this endpoint?" confirmLabel="Delete" danger
        onConfirm={() => { const w = deleting; setDeleting(null); if (w) void act("DELETE", `/monitoring/webhooks/${enc(w.id)}`); }} onCancel={() => setDeleting(null)}>
        <p>No more events go to <span class="mono">{deleting?.url}</span>; deliveries still queued for it are dropped.</p>
      </ConfirmDialog>
    </section>
  );
}

function Deliveries({ projectId, endpointId, operator }: { projectId: string; endpointId: string; operator: boolean }) {
  const res = useLoad(() => getJson<List<WebhookDelivery>>(`/monitoring/webhooks/${enc(endpointId)}/deliveries`, { project: projectId, limit: 50 }), endpointId);
  const [error, setError] = useState<string | null>(null);
  const replay = async (d: WebhookDelivery) => {
    setError(null);
    try {
      await send("POST", `/monitoring/webhook-deliveries/${enc(d.id)}/replay`, undefined, { project: projectId });
      res.reload();
    } catch (e) {
      setError(errorText(e));
    }
  };
  const rows = res.data?.data ?? [];
  return (
    <div class="table-wrap">
      <h3>Deliveries of <span class="mono">{endpointId}</span></h3>
      <ErrorAlert message={error ?? res.error} />
      <table>
        <caption class="visually-hidden">Deliveries</caption>
        <thead><tr><th scope="col">Time (UTC)</th><th scope="col">Event</th><th scope="col" class="num">Attempt</th><th scope="col" class="num">Status</th><th scope="col" class="num">Duration</th><th scope="col">Error</th><th scope="col">Response</th>{operator && <th scope="col">Replay</th>}</tr></thead>
        <tbody>
          {rows.map((d) => (
            <tr key={d.id}>
              <td>{time(d.created_at)}</td>
              <td class="mono">{d.event_type}</td>
              <td class="num">{d.attempt}</td>
              <td class="num">{d.status_code === null ? "–" : <span class={d.status_code < 300 ? "badge badge-ok" : "badge badge-err"}>{d.status_code}</span>}</td>
              <td class="num">{duration(d.duration_ms)}</td>
              <td class="wrap">{d.error ?? "–"}</td>
              <td class="mono wrap">{d.response_excerpt ?? ""}</td>
              {operator && <td><button type="button" class="btn btn-quiet" aria-label={`Replay delivery ${d.id}`} onClick={() => void replay(d)}>Replay</button></td>}
            </tr>
          ))}
        </tbody>
      </table>
      {!res.loading && rows.length === 0 && <p class="empty">No delivery yet.</p>}
    </div>
  );
}
