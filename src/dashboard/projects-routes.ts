// Projects and keys in the dashboard (docs/dashboard.md "Projects API"): the list for any session;
// detail and writes for the operator only, through the admin API's own functions and validators,
// each write audited as the admin API audits it and followed by the same cache clearing.
import { Elysia } from "elysia";
import { assertCidrs } from "../admin/cidrs.ts";
import { addCredits, addSharedCredits, withBalance, withBalances } from "../admin/billing.ts";
import { createProject, projectView, splitNullPolicyKeys, updateProject } from "../admin/projects.ts";
import { adminAuditOf } from "../audit/admin-actions.ts";
import { recordAudit } from "../audit/audit-log.ts";
import { issueKey } from "../auth/api-keys.ts";
import { toUsd } from "../billing/money.ts";
import { dayKey, monthKey } from "../billing/periods.ts";
import { PLANS } from "../billing/plans.ts";
import { GwError } from "../errors/gw-error.ts";
import type { Deps } from "../pipeline/deps.ts";
import { CreateKeyBody, CreateProjectBody, CreditsBody, UpdateProjectBody } from "../schema/admin.ts";
import { compileValidator, parseJsonObject, readBodyText } from "../schema/validate.ts";
import { spendFigures } from "../store/postgres/dashboard-reads.ts";
import type { Project } from "../store/repos/projects.ts";
import { directWrite, type TenantWriter } from "../store/tenant-mirror-writes.ts";
import { actorOf, dashboardSession, sourceIpOf } from "./session-plugin.ts";
import type { Viewer } from "./viewer.ts";

const validateCreate = compileValidator(CreateProjectBody);
const validateUpdate = compileValidator(UpdateProjectBody);
const validateKey = compileValidator(CreateKeyBody);
const validateCredits = compileValidator(CreditsBody);

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());


/** `params` is undefined on a route without path params. */
interface WriteContext { viewer: Viewer; request: Request; server: unknown; params: Record<string, string | undefined> | undefined; status?: number }

export const projectsRoutes = (deps: Deps, prefix: string) => {
  const projectOr404 = (id: string): Project => {
    const project = deps.repos.projects.get(id);
    if (!project) throw new GwError("not_found", `No project '${id}'.`, { param: "id" });
    return project;
  };
  const summary = (p: Project, balance: number) => ({
    id: p.id, name: p.name, plan: p.plan, billing_mode: p.billingMode, balance: toUsd(balance), created_at: iso(p.createdAt),
  });
  /** As the admin API writes (admin-routes.ts): single-node's repos; multi-instance, PostgreSQL first,
   * answered once committed, then the mirror (docs/scale-out.md "Tenants"). */
  const writerOf = (): TenantWriter => (deps.shared ? deps.shared.mirror.write() : directWrite(deps.repos));
  const balanceOf = <T>(projectId: string, view: (balance: number) => T): T | Promise<T> => withBalance(deps.billing, deps.shared?.money ?? null, projectId, view);

  /** Budgets of the policy with what this day and month have spent (USD), or null without budgets.
   * Multi-instance: every instance's spend, from PostgreSQL's counters. */
  function usageOf(p: Project) {
    const shared = deps.shared;
    if (!shared) {
      const account = deps.billing.account(p.id);
      account.roll(deps.clock.now());
      return usageView(p, account.month.requests, (period) => account.spentIn(period).spent);
    }
    const now = deps.clock.now();
    return spendFigures(shared.pg, p.id, dayKey(now), monthKey(now))
      .then((f) => usageView(p, f.monthRequests, (period) => (period === "daily" ? f.daySpent : f.monthSpent)));
  }

  function usageView(p: Project, monthRequests: number, spentNano: (period: "daily" | "monthly") => number) {
    const budgets = p.policy.budgets ?? {};
    const periods = (["daily", "monthly"] as const).filter((period) => budgets[period] !== undefined);
    return {
      plan: p.plan,
      requests_this_month: monthRequests,
      plan_allowance: PLANS[p.plan].monthlyRequests,
      budgets: periods.length === 0 ? null : {
        ...Object.fromEntries(periods.map((period) => [period, { budget: budgets[period]!, spent: toUsd(spentNano(period)) }])),
        action: p.policy.budget_action ?? "block",
      },
    };
  }

  /** One write: its body read (when it has one), the action, then the admin API's cache clearing and
   * its audit entry with this session as the actor; a failed write is audited as a failure. */
  async function write<T>(c: WriteContext, method: string, route: string, act: (body: Record<string, unknown> | null) => T | Promise<T>): Promise<T> {
    const entry = (body: Record<string, unknown> | null, response: unknown) => adminAuditOf({ method, route, params: c.params ?? {}, body, response });
    const common = { actor: actorOf(c.viewer), sourceIp: sourceIpOf(c.request, c.server, deps) };
    let body: Record<string, unknown> | null = null;
    try {
      if (method !== "DELETE") body = parseJsonObject(await readBodyText(c.request));
      const response = await act(body);
      deps.authCache.clear();
      deps.projectProviders.clear();
      const audit = entry(body, response);
      const projectId = audit.action === "key.revoke" && audit.target ? (deps.repos.apiKeys.get(audit.target)?.projectId ?? null) : audit.projectId;
      await recordAudit(deps, { ...audit, ...common, projectId, status: c.status ?? 200 });
      return response;
    } catch (err) {
      const audit = entry(body, null);
      const failure = err instanceof GwError ? { status: err.status, error: err.code } : { status: 500, error: "internal_error" };
      recordAudit(deps, { ...audit, ...common, outcome: "failure", status: failure.status, details: { ...audit.details, error: failure.error } });
      throw err;
    }
  }

  return new Elysia({ name: "gw-dashboard-projects", prefix })
    .use(dashboardSession(deps))
    .get("/projects", ({ viewer, projectId }) => {
      const projects = viewer.role === "operator" ? deps.repos.projects.list() : [deps.repos.projects.get(projectId)].filter((p): p is Project => p !== null);
      // Multi-instance: balances are PostgreSQL's (the admin API's project list reads them the same way).
      return withBalances(deps.billing, deps.shared?.money ?? null, projects.map((p) => p.id), (balances) => ({
        object: "list", data: projects.map((p, i) => summary(p, balances[i] ?? 0)),
      }));
    }, { dash: true })
    .get("/projects/:id", ({ params }) => {
      const p = projectOr404(params.id);
      const keys = deps.repos.apiKeys.listByProject(p.id).map((k) => ({
        id: k.id, name: k.name, mode: k.mode, scopes: k.scopes, created_at: iso(k.createdAt), revoked_at: iso(k.revokedAt),
      }));
      const usage = usageOf(p);
      if (!(usage instanceof Promise)) return { project: projectView(p, deps.billing.balance(p.id)), keys, usage };
      return Promise.all([usage, balanceOf(p.id, (balance) => projectView(p, balance))]).then(([u, project]) => ({ project, keys, usage: u }));
    }, { dash: { operator: true } })
    .post("/projects", ({ viewer, request, server, params, set }) =>
      write({ viewer, request, server, params, status: 201 }, "POST", "/projects", (body) => {
        const input = validateCreate(body);
        assertCidrs(input.policy?.ip_allowlist, "policy.ip_allowlist");
        const w = writerOf();
        const project = createProject(w.repos.projects, input, deps.clock.now());
        return w.commit(() => {
          set.status = 201;
          return projectView(project, 0);
        });
      }), { dash: { operator: true }, parse: "none" })
    .patch("/projects/:id", ({ viewer, request, server, params }) =>
      write({ viewer, request, server, params }, "PATCH", "/projects/:id", (raw) => {
        const { body, nullKeys } = splitNullPolicyKeys(raw);
        const input = validateUpdate(body);
        assertCidrs(input.policy?.ip_allowlist, "policy.ip_allowlist");
        const update = () => {
          const w = writerOf();
          const project = updateProject(w.repos.projects, params.id, input, nullKeys);
          return w.commit(() => balanceOf(project.id, (balance) => projectView(project, balance)));
        };
        // Multi-instance: merged into PostgreSQL's current row, as the admin API's PATCH.
        return deps.shared ? deps.shared.mirror.updating(params.id, update) : update();
      }), { dash: { operator: true }, parse: "none" })
    .post("/projects/:id/keys", ({ viewer, request, server, params, set }) =>
      write({ viewer, request, server, params, status: 201 }, "POST", "/projects/:id/keys", (body) => {
        const project = projectOr404(params.id);
        const input = validateKey(body);
        assertCidrs(input.ip_allowlist, "ip_allowlist");
        const w = writerOf();
        const { key, secret } = issueKey(w.repos.apiKeys, {
          projectId: project.id, name: input.name ?? null, scopes: input.scopes ?? null, mode: input.mode ?? "live",
          byok: input.byok ?? false, ipAllowlist: input.ip_allowlist ?? null,
        });
        return w.commit(() => {
          deps.eventSources.keyCreated(key);
          set.status = 201;
          return { object: "key", id: key.id, key: secret, scopes: key.scopes, mode: key.mode, created_at: iso(key.createdAt) };
        });
      }), { dash: { operator: true }, parse: "none" })
    .delete("/keys/:key_id", ({ viewer, request, server, params }) =>
      write({ viewer, request, server, params }, "DELETE", "/keys/:key_id", () => {
        const w = writerOf();
        const key = w.repos.apiKeys.revoke(params.key_id, deps.clock.now());
        if (!key) throw new GwError("not_found", `No key '${params.key_id}'.`, { param: "key_id" });
        return w.commit(() => {
          deps.eventSources.keyRevoked(key);
          return { object: "key", id: key.id, revoked: true };
        });
      }), { dash: { operator: true } })
    .post("/projects/:id/credits", ({ viewer, request, server, params }) =>
      write({ viewer, request, server, params }, "POST", "/projects/:id/credits", (body) => {
        projectOr404(params.id);
        const { amount } = validateCredits(body);
        // Multi-instance: the credit is PostgreSQL's, as the admin API's.
        if (deps.shared) return addSharedCredits(deps.shared.money, params.id, amount, "dashboard", deps.clock.now());
        return addCredits(deps.billing, params.id, amount, "dashboard");
      }), { dash: { operator: true }, parse: "none" });
};
