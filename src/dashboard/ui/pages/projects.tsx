// Projects (operator only): every project, a new one, and for the selected project (`?project=`) its
// balance, plan usage and budgets, settings and policy, keys (created, shown once, revoked) and credits.
import { useState } from "preact/hooks";
import { getJson, send, session } from "../api.ts";
import { href, query, setQuery } from "../router.ts";
import type { List, ProjectDetail, ProjectSummary, ProjectView } from "../types.ts";
import { count, dollars } from "../format.ts";
import { ErrorAlert, errorText, Loading, Options, time, useLoad } from "../components/load.tsx";
import { BILLING_MODES, PLANS, PolicyForm } from "../components/policy-form.tsx";
import { KeysPanel } from "../components/keys-panel.tsx";
import { loadProjects } from "../layout.tsx";
import "../styles/detail.css";
import "../styles/requests.css";
import "../styles/projects.css";

function CreateProject({ onCreated }: { onCreated: (id: string) => void }) {
  const [error, setError] = useState<string | null>(null);
  // A new form after each project (form.reset() would not restore a Preact <select>'s choice).
  const [round, setRound] = useState(0);
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    setError(null);
    try {
      const p = await send<ProjectView>("POST", "/projects", {
        name: String(f.get("name") ?? "").trim(), plan: String(f.get("plan")), billing: { mode: String(f.get("mode")) },
      });
      setRound((r) => r + 1);
      onCreated(p.id);
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form key={round} class="panel create-project" onSubmit={onSubmit} aria-labelledby="create-h">
      <h2 id="create-h">New project</h2>
      <div class="row">
        <label>Name<input name="name" required maxLength={200} /></label>
        <label>Plan
          <select name="plan" aria-label="Plan"><Options list={PLANS} current="pro" /></select>
        </label>
        <label>Billing
          <select name="mode" aria-label="Billing"><Options list={BILLING_MODES} current="postpaid" /></select>
        </label>
        <button type="submit" class="btn btn-primary">Create project</button>
      </div>
      <ErrorAlert message={error} />
    </form>
  );
}

function Credits({ projectId, onAdded }: { projectId: string; onAdded: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const amount = Number(new FormData(form).get("amount"));
    setError(null);
    setDone(null);
    try {
      await send("POST", `/projects/${encodeURIComponent(projectId)}/credits`, { amount });
      form.reset();
      setDone(`Added ${dollars(amount)} of credits.`);
      onAdded();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form class="panel" onSubmit={onSubmit} aria-labelledby="credits-h">
      <h3 id="credits-h">Credits</h3>
      <div class="row">
        <label>Amount (USD)<input name="amount" type="number" min="0.01" step="0.01" required /></label>
        <button type="submit" class="btn">Add credits</button>
        {done && <span role="status" class="status inline-status">{done}</span>}
      </div>
      <ErrorAlert message={error} />
    </form>
  );
}

/** Budgets as the API gives them: each budget's numbers, whatever keys it has. */
function Budgets({ budgets }: { budgets: Record<string, unknown> | null }) {
  const entries = Object.entries(budgets ?? {});
  if (entries.length === 0) return <p class="muted">No budget set.</p>;
  const show = (v: unknown) => (typeof v === "number" ? dollars(v) : v === null || v === undefined ? "–" : typeof v === "object" ? JSON.stringify(v) : String(v));
  return (
    <dl class="facts">
      {entries.map(([k, v]) => (
        <div key={k}>
          <dt>{k.replace(/_/g, " ")}</dt>
          <dd>{typeof v === "object" && v !== null && !Array.isArray(v)
            ? Object.entries(v).map(([kk, vv]) => `${kk.replace(/_/g, " ")} ${show(vv)}`).join(" · ")
            : show(v)}</dd>
        </div>
      ))}
    </dl>
  );
}

/** `onListChanged`: the list and the switcher show name, plan and balance, so they reload too. */
function ProjectPanel({ id, onListChanged }: { id: string; onListChanged: () => void }) {
  const got = useLoad(() => getJson<ProjectDetail>(`/projects/${encodeURIComponent(id)}`), id);
  if (got.error) return <ErrorAlert message={got.error} />;
  if (!got.data) return <Loading what="the project" />;
  const { project: p, keys, usage } = got.data;
  return (
    <section class="project-panel" aria-labelledby="project-h">
      <h2 id="project-h">{p.name} <span class="muted mono">{p.id}</span></h2>
      <dl class="facts">
        <div><dt>Plan</dt><dd>{p.plan}</dd></div>
        <div><dt>Billing</dt><dd>{p.billing.mode}</dd></div>
        <div><dt>Balance</dt><dd>{dollars(p.billing.balance)}</dd></div>
        <div><dt>Credit limit</dt><dd>{p.billing.credit_limit === null ? "none" : dollars(p.billing.credit_limit)}</dd></div>
        <div><dt>Requests this month</dt><dd>{count(usage.requests_this_month)}{usage.plan_allowance !== null ? ` of ${count(usage.plan_allowance)}` : ""}</dd></div>
        <div><dt>Created (UTC)</dt><dd>{time(p.created_at)}</dd></div>
      </dl>
      <h3>Budgets</h3>
      <Budgets budgets={usage.budgets} />
      <PolicyForm key={p.id} project={p} onSaved={() => { got.reload(); onListChanged(); }} />
      <KeysPanel projectId={p.id} keys={keys} onChanged={got.reload} />
      <Credits projectId={p.id} onAdded={() => { got.reload(); onListChanged(); }} />
    </section>
  );
}

export function ProjectsPage() {
  const list = useLoad(() => getJson<List<ProjectSummary>>("/projects"), "projects");
  const listChanged = () => { list.reload(); void loadProjects(); };
  if (session.value?.role !== "operator") {
    return (
      <section>
        <h1>Projects</h1>
        <p class="muted">Projects and keys are managed by the operator (sign in with the admin token).</p>
      </section>
    );
  }
  const projects = list.data?.data ?? [];
  const selected = query.value.get("project") ?? projects[0]?.id ?? null;
  return (
    <section class="projects-page">
      <h1>Projects</h1>
      <CreateProject onCreated={(id) => { listChanged(); setQuery({ project: id }); }} />
      <ErrorAlert message={list.error} />
      {list.loading && !list.data && <Loading what="projects" />}
      {list.data && (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Projects</caption>
            <thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Plan</th><th scope="col">Billing</th><th scope="col" class="num">Balance</th><th scope="col">Created (UTC)</th></tr></thead>
            <tbody>
              {projects.map((p) => (
                <tr key={p.id} class={p.id === selected ? "selected" : undefined} aria-current={p.id === selected ? "true" : undefined}>
                  <td><a href={href("/projects", { project: p.id })}>{p.name}</a></td>
                  <td class="mono">{p.id}</td>
                  <td>{p.plan}</td>
                  <td>{p.billing_mode}</td>
                  <td class="num">{dollars(p.balance)}</td>
                  <td>{time(p.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {projects.length === 0 && <p class="empty">No project yet.</p>}
        </div>
      )}
      {selected && <ProjectPanel key={selected} id={selected} onListChanged={listChanged} />}
    </section>
  );
}
