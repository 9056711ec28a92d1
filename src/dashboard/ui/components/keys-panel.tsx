// A project's API keys on the Projects page: the list, a new key (its secret shown once, here only),
// and revocation behind a confirmation (docs/api.md "Admin API").
import { useState } from "preact/hooks";
import { send } from "../api.ts";
import type { CreatedKey, KeySummary } from "../types.ts";
import { ConfirmDialog } from "./confirm-dialog.tsx";
import { ErrorAlert, errorText, Options, time } from "./load.tsx";

const SCOPES = ["chat", "embeddings", "models", "cache", "requests"] as const;
const DEFAULT_SCOPES = new Set<string>(["chat", "embeddings", "models", "cache"]);

function SecretBox({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = () => navigator.clipboard.writeText(created.key).then(
    () => setCopied("Key copied to the clipboard."),
    (e: unknown) => setCopied(`Could not copy: ${errorText(e)}`),
  );
  return (
    <div class="secret-box" role="region" aria-label="New key">
      <p><strong>Copy this key now: it is shown only once.</strong> {created.mode} key {created.id}, scopes {created.scopes.join(", ")}.</p>
      <div class="row">
        <input class="mono secret" readOnly value={created.key} aria-label="New key secret" onFocus={(e) => e.currentTarget.select()} />
        <button type="button" class="btn" onClick={() => void copy()}>Copy key</button>
        <button type="button" class="btn btn-quiet" onClick={onDone}>Done</button>
      </div>
      <span role="status">{copied ?? ""}</span>
    </div>
  );
}

function CreateKey({ projectId, onCreated }: { projectId: string; onCreated: (k: CreatedKey) => void }) {
  const [error, setError] = useState<string | null>(null);
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    const name = String(f.get("name") ?? "").trim();
    const scopes = f.getAll("scope").map(String);
    setError(null);
    if (scopes.length === 0) return setError("Choose at least one scope.");
    try {
      const body: Record<string, unknown> = { mode: String(f.get("mode")), scopes };
      if (name) body.name = name;
      const created = await send<CreatedKey>("POST", `/projects/${encodeURIComponent(projectId)}/keys`, body);
      form.reset();
      onCreated(created);
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form class="create-key" onSubmit={onSubmit} aria-label="New key">
      <div class="row">
        <label>Key name<input name="name" maxLength={200} /></label>
        <label>Mode
          <select name="mode" aria-label="Mode"><Options list={["live", "test"]} current="live" /></select>
        </label>
        <fieldset class="scopes">
          <legend>Scopes</legend>
          {SCOPES.map((s) => (
            <label key={s} class="check"><input type="checkbox" name="scope" value={s} defaultChecked={DEFAULT_SCOPES.has(s)} /> {s}</label>
          ))}
        </fieldset>
        <button type="submit" class="btn btn-primary">Create key</button>
      </div>
      <ErrorAlert message={error} />
    </form>
  );
}

export function KeysPanel({ projectId, keys, onChanged }: { projectId: string; keys: KeySummary[]; onChanged: () => void }) {
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<KeySummary | null>(null);
  const [error, setError] = useState<string | null>(null);
  const revoke = async () => {
    const k = revoking;
    setRevoking(null);
    if (!k) return;
    setError(null);
    try {
      await send("DELETE", `/keys/${encodeURIComponent(k.id)}`);
      onChanged();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <section class="panel" aria-labelledby="keys-h">
      <h3 id="keys-h">Keys</h3>
      {created && <SecretBox created={created} onDone={() => setCreated(null)} />}
      <CreateKey projectId={projectId} onCreated={(k) => { setCreated(k); onChanged(); }} />
      <ErrorAlert message={error} />
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">Keys</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Mode</th><th scope="col">Scopes</th><th scope="col">Created (UTC)</th><th scope="col">State</th></tr></thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id} class={k.revoked_at ? "revoked" : undefined}>
                <td>{k.name ?? "–"}</td>
                <td class="mono">{k.id}</td>
                <td>{k.mode === "test" ? <span class="badge badge-test">test</span> : k.mode}</td>
                <td>{k.scopes.join(", ")}</td>
                <td>{time(k.created_at)}</td>
                <td>{k.revoked_at ? `revoked ${time(k.revoked_at)}` : (
                  <button type="button" class="btn btn-quiet danger-text" aria-label={`Revoke key ${k.name ?? k.id}`} onClick={() => setRevoking(k)}>Revoke</button>
                )}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {keys.length === 0 && <p class="empty">No key yet.</p>}
      </div>
      <ConfirmDialog open={revoking !== null} title="Revoke this key?" confirmLabel="Revoke" danger onConfirm={() => void revoke()} onCancel={() => setRevoking(null)}>
        <p>Key <span class="mono">{revoking?.id}</span> stops working at once, for every caller. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}
