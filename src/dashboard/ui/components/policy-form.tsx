// A project's settings: name, plan, billing and the policy as JSON (docs/api.md "Project policy").
// The server validates with the admin API's schema; its message is shown beside the form.
import { useState } from "preact/hooks";
import { send } from "../api.ts";
import type { ProjectView } from "../types.ts";
import { ErrorAlert, errorText, Options } from "./load.tsx";

export const PLANS = ["free", "pro", "business"] as const;
export const BILLING_MODES = ["postpaid", "prepaid"] as const;

/** The PATCH body's policy: changed and new keys as edited, removed keys as null (unset). */
export function policyPatch(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(before)) if (!(k in after)) out[k] = null;
  for (const [k, v] of Object.entries(after)) if (JSON.stringify(before[k]) !== JSON.stringify(v)) out[k] = v;
  return out;
}

function parsePolicy(text: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text.trim() === "" ? "{}" : text);
  } catch (e) {
    throw new Error(`The policy is not valid JSON: ${errorText(e)}`);
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error("The policy must be a JSON object.");
  return v as Record<string, unknown>;
}

export function PolicyForm({ project, onSaved }: { project: ProjectView; onSaved: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);

  const onSubmit = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    setError(null);
    setSaved(false);
    try {
      const policy = policyPatch(project.policy, parsePolicy(String(f.get("policy") ?? "")));
      const limit = String(f.get("credit_limit") ?? "").trim();
      const body: Record<string, unknown> = {
        name: String(f.get("name") ?? "").trim(),
        plan: String(f.get("plan")),
        billing: { mode: String(f.get("mode")), credit_limit: limit === "" ? null : Number(limit) },
      };
      if (Object.keys(policy).length > 0) body.policy = policy;
      setBusy(true);
      await send("PATCH", `/projects/${encodeURIComponent(project.id)}`, body);
      setSaved(true);
      onSaved();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="policy-form panel" onSubmit={onSubmit} aria-labelledby="settings-h" key={`${project.id}:${JSON.stringify(project)}`}>
      <h3 id="settings-h">Settings and policy</h3>
      <div class="form-grid">
        <label>Display name<input name="name" required maxLength={200} defaultValue={project.name} /></label>
        <label>Plan
          <select name="plan" aria-label="Plan"><Options list={PLANS} current={project.plan} /></select>
        </label>
        <label>Billing mode
          <select name="mode" aria-label="Billing mode"><Options list={BILLING_MODES} current={project.billing.mode} /></select>
        </label>
        <label>Credit limit (USD, empty for none)
          <input name="credit_limit" type="number" min="0" step="any" defaultValue={project.billing.credit_limit === null ? "" : String(project.billing.credit_limit)} />
        </label>
      </div>
      <label class="policy-json">Policy (JSON; removing a key unsets it)
        <textarea name="policy" rows={10} spellcheck={false} defaultValue={JSON.stringify(project.policy, null, 2)} />
      </label>
      <p class="muted hint">Keys: cache, semantic_cache, semantic_mode, semantic_threshold, cache_ttl, retention, pii, secrets,
        allowed_providers, blocked_providers, regions, ip_allowlist, rate_limits, budgets, budget_action, trace_sample_rate, optimization_mode.</p>
      <div class="row">
        <button type="submit" class="btn btn-primary" disabled={busy}>Save settings</button>
        {saved && <span role="status" class="status inline-status">Settings saved.</span>}
      </div>
      <ErrorAlert message={error} />
    </form>
  );
}
