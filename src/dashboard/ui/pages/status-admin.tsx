// Status page admin (/status-admin, operator only): the incidents and maintenance windows the public
// /status page shows; create one, post an update, resolve or complete it, delete it (docs/dashboard.md "Pages").
import { useState } from "preact/hooks";
import { getJson, send } from "../api.ts";
import { ConfirmDialog } from "../components/confirm-dialog.tsx";
import { ErrorAlert, errorText, Loading, Options, time, useLoad } from "../components/load.tsx";
import type { List, StatusPost } from "../types.ts";
import "../styles/projects.css";
import "../styles/monitoring.css";

const enc = encodeURIComponent;
const INCIDENT_STATUSES = ["investigating", "identified", "monitoring", "resolved"];
const MAINTENANCE_STATUSES = ["scheduled", "in_progress", "verifying", "completed"];
const IMPACTS = ["none", "minor", "major", "critical"];
const COMPONENTS_HINT = "api, routing, cache, provider-<id>";

const isIncident = (p: StatusPost) => p.object === "status_incident";
const isClosed = (p: StatusPost) => p.status === "resolved" || p.status === "completed";
const list = (text: string) => text.split(/[\s,]+/).filter(Boolean);
/** A datetime-local value (the browser's local time) -> ISO 8601. */
const iso = (local: string) => (local ? new Date(local).toISOString() : "");

function NewPost({ kind, onSave }: { kind: "incident" | "maintenance"; onSave: (path: string, body: unknown) => Promise<boolean> }) {
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    const s = (k: string) => String(f.get(k) ?? "").trim();
    const common = { name: s("name"), components: list(s("components")), body: s("body") };
    const body = kind === "incident"
      ? { ...common, status: s("status"), impact: s("impact") }
      : { ...common, scheduled_for: iso(s("scheduled_for")), scheduled_until: iso(s("scheduled_until")) };
    if (await onSave(kind === "incident" ? "/monitoring/status/incidents" : "/monitoring/status/maintenances", body)) form.reset();
  };
  const title = kind === "incident" ? "New incident" : "New maintenance window";
  return (
    <form onSubmit={submit} aria-label={title} class="panel">
      <h2>{title}</h2>
      <div class="form-grid projects-page">
        <label>Title<input name="name" required maxLength={200} /></label>
        <label>Components<input name="components" placeholder={COMPONENTS_HINT} /></label>
        {kind === "incident" ? <>
          <label>Status<select name="status"><Options list={INCIDENT_STATUSES.slice(0, 3)} current="investigating" /></select></label>
          <label>Impact<select name="impact"><Options list={IMPACTS} current="minor" /></select></label>
        </> : <>
          <label>Starts<input name="scheduled_for" type="datetime-local" required /></label>
          <label>Ends<input name="scheduled_until" type="datetime-local" required /></label>
        </>}
        <label>Message<textarea name="body" rows={2} required maxLength={5000} /></label>
      </div>
      <button type="submit" class="btn btn-primary">{kind === "incident" ? "Create incident" : "Schedule maintenance"}</button>
    </form>
  );
}

function PostRow({ post, act, onDelete }: { post: StatusPost; act: (method: "POST" | "DELETE", path: string, body?: unknown) => Promise<boolean>; onDelete: () => void }) {
  const statuses = isIncident(post) ? INCIDENT_STATUSES : MAINTENANCE_STATUSES;
  const done = statuses[3]!;
  const update = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    if (await act("POST", `/monitoring/status/posts/${enc(post.id)}/updates`, { status: String(f.get("status")), body: String(f.get("body") ?? "").trim() })) form.reset();
  };
  const latest = post.updates[0];
  return (
    <>
    <tr>
      <td><strong>{post.name}</strong><div class="muted mono">{post.id}</div></td>
      <td>{isIncident(post) ? `incident, ${post.impact}` : <>maintenance<div class="muted">{time(post.scheduled_for ?? "")} – {time(post.scheduled_until ?? "")}</div></>}</td>
      <td><span class={isClosed(post) ? "badge badge-ok" : "badge badge-warn"}>{post.status}</span></td>
      <td class="mono">{post.components.join(", ") || "–"}</td>
      <td class="wrap">{latest ? <>{latest.body}<div class="muted">{time(latest.created_at)}</div></> : "–"}</td>
    </tr>
    <tr>
      <td colSpan={5}><div class="row">
        {!isClosed(post) && (
          <form class="row" onSubmit={update} aria-label={`Update ${post.name}`}>
            <select name="status" aria-label="New status"><Options list={statuses} current={post.status} /></select>
            <input name="body" required aria-label="Update message" placeholder="What changed" maxLength={5000} />
            <button type="submit" class="btn">Post update</button>
            <button type="button" class="btn" onClick={() => void act("POST", `/monitoring/status/posts/${enc(post.id)}/updates`, { status: done, body: isIncident(post) ? "Resolved." : "Completed." })}>
              {isIncident(post) ? "Resolve" : "Complete"}
            </button>
          </form>
        )}
        <button type="button" class="btn btn-quiet danger-text" aria-label={`Delete ${post.name}`} onClick={onDelete}>Delete</button>
      </div></td>
    </tr>
    </>
  );
}

export function StatusAdminPage() {
  const res = useLoad(() => getJson<List<StatusPost>>("/monitoring/status/posts", { limit: 50 }), "posts");
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<StatusPost | null>(null);
  const act = async (method: "POST" | "DELETE", path: string, body?: unknown): Promise<boolean> => {
    setError(null);
    try {
      await send(method, path, body);
      res.reload();
      return true;
    } catch (e) {
      setError(errorText(e));
      return false;
    }
  };
  const posts = res.data?.data ?? [];
  return (
    <>
      <h1>Status page</h1>
      <p class="muted">
        Incidents and maintenance windows posted here appear on the public <a href="/status" target="_blank" rel="noopener">status page</a> (and
        its <a href="/status.json" target="_blank" rel="noopener">JSON</a>) beside the components' measured state.
      </p>
      <ErrorAlert message={error ?? res.error} />
      <section class="panel" aria-labelledby="posts-h">
        <h2 id="posts-h">Posts</h2>
        {res.loading && !res.data ? <Loading what="status posts" /> : (
          <div class="table-wrap">
            <table>
              <caption class="visually-hidden">Status posts</caption>
              <thead><tr><th scope="col">Title</th><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">Components</th><th scope="col">Latest update</th></tr></thead>
              <tbody>{posts.map((p) => <PostRow key={p.id} post={p} act={act} onDelete={() => setDeleting(p)} />)}</tbody>
            </table>
            {posts.length === 0 && <p class="empty">Nothing posted yet.</p>}
          </div>
        )}
      </section>
      <NewPost kind="incident" onSave={(p, b) => act("POST", p, b)} />
      <NewPost kind="maintenance" onSave={(p, b) => act("POST", p, b)} />
      <ConfirmDialog open={deleting !== null} title="Delete this post?" confirmLabel="Delete" danger
        onConfirm={() => { const p = deleting; setDeleting(null); if (p) void act("DELETE", `/monitoring/status/posts/${enc(p.id)}`); }} onCancel={() => setDeleting(null)}>
        <p><strong>{deleting?.name}</strong> and its updates disappear from the status page.</p>
      </ConfirmDialog>
    </>
  );
}
