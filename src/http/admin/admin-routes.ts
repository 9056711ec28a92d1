// The admin API (docs/api.md "Admin API"), enabled only when GW_ADMIN_TOKEN is set. Project keys
// never reach it: anything but the admin token answers 401.
import { Elysia } from "elysia";
import { assertCidrs } from "../../admin/cidrs.ts";
import { issuedKeyView, keyView } from "../../admin/keys.ts";
import { createProject, parseProjectPatch, projectView, updateProject } from "../../admin/projects.ts";
import { deleteProviderKey, putProviderKey } from "../../admin/provider-keys.ts";
import { addCredits, addSharedCredits, listInvoices, listSharedInvoices, withBalance, withBalances } from "../../admin/billing.ts";
import { postgresInvoiceLedger } from "../../store/postgres/invoices.ts";
import { issueKey } from "../../auth/api-keys.ts";
import { GwError } from "../../errors/gw-error.ts";
import { CreateKeyBody, CreateProjectBody, CreditsBody, ProviderKeyBody } from "../../schema/admin.ts";
import { compileValidator, parseJsonObject, readBodyText } from "../../schema/validate.ts";
import type { Deps } from "../../pipeline/deps.ts";
import type { AdminGate } from "./admin-gate.ts";
import { projectOfTarget } from "./audit-project.ts";
import { alertRoutes } from "./alert-routes.ts";
import { webhookRoutes } from "./webhook-routes.ts";
import { statusAdminRoutes } from "./status-routes.ts";
import { adminAuditOf } from "../../audit/admin-actions.ts";
import { directWrite, type TenantWriter } from "../../store/tenant-mirror-writes.ts";
import { auditPageQuery } from "../../audit/audit-log.ts";
import { deleteSharedSso, deleteSso, getSharedSso, getSso, parseSsoBody, putSharedSso, putSso } from "../../auth/oidc-config.ts";
import { postgresSsoStore } from "../../store/postgres/sso.ts";

const validateCreate = compileValidator(CreateProjectBody);
const validateKey = compileValidator(CreateKeyBody);
const validateCredits = compileValidator(CreditsBody);
const validateProviderKey = compileValidator(ProviderKeyBody);

const readJson = async (request: Request) => parseJsonObject(await readBodyText(request));

/** Bodies of admin writes, read from a clone before the handler so the audit entry can name the
 * fields a call changed (docs/dashboard.md "Audit log"). */
const auditBodies = new WeakMap<Request, Record<string, unknown>>();
const auditSources = new WeakMap<Request, string | null>();
/** The writes whose entry names body fields; provider-key bodies (a secret) are never read for it. */
const AUDITED_BODIES = new Set(["POST /projects", "PATCH /projects/:id", "POST /projects/:id/credits", "PUT /projects/:id/sso"]);

/** The status an error answers with, for the audit entry of a failed admin call. */
const statusOf = (code: unknown, error: unknown): number =>
  error instanceof GwError ? error.status : code === "NOT_FOUND" ? 404 : code === "PARSE" || code === "VALIDATION" ? 400 : 500;

function projectOr404(deps: Deps, id: string) {
  const project = deps.repos.projects.get(id);
  if (!project) throw new GwError("not_found", `No project '${id}'.`, { param: "id" });
  return project;
}


/** Projects, keys and provider keys are written through this: on single-node the repos, answered at
 * once; in the multi-instance mode PostgreSQL first, answered once committed (docs/scale-out.md). */
const writerOf = (deps: Deps): TenantWriter => (deps.shared ? deps.shared.mirror.write() : directWrite(deps.repos));

/** Multi-instance: a project or key made on another instance a moment ago may not be mirrored here
 * yet (its message is on its way): it is read from PostgreSQL first. Single-node: `run` at once. */
function withRows<T>(deps: Deps, ids: { project?: string; key?: string }, run: () => T): T | Promise<T> {
  const mirror = deps.shared?.mirror;
  if (!mirror || !mirror.lacks(ids)) return run();
  return mirror.fetch(ids).then(run);
}

const ADMIN_ACTOR = { type: "admin_token", id: null, email: null } as const;
const sourceOf = (gate: AdminGate, request: Request, server: unknown): string | null => {
  const ip = gate.sourceOf(request, server);
  return ip === "unknown" ? null : ip;
};

export const adminRoutes = (deps: Deps, gate: AdminGate) =>
  new Elysia({ prefix: "/admin" })
    // Read while the connection is open: a failed call's entry is written after its answer.
    .onTransform(({ request, server }) => {
      auditSources.set(request, sourceOf(gate, request, server));
    })
    .onBeforeHandle(({ request, server }) => gate.check(request, server))
    .onBeforeHandle(async ({ request, route }) => {
      if (!AUDITED_BODIES.has(`${request.method} ${route.replace(/^.*?\/admin(?=\/)/, "")}`)) return;
      try {
        auditBodies.set(request, parseJsonObject(await readBodyText(request.clone() as Request)));
      } catch {
        // The handler reads the body again and answers the error; the entry then has no field names.
      }
    })
    // Every admin call is audited (docs/dashboard.md "Audit log"), but not the lock-out 429s; a
    // success is written before it is answered.
    .onAfterHandle(({ request, route, params, set, response }) => {
      const audit = adminAuditOf({ method: request.method, route: route.replace(/^.*?\/admin(?=\/)/, ""), params: params ?? {}, body: auditBodies.get(request) ?? null, response });
      const projectId = audit.projectId ?? projectOfTarget(deps, params ?? {});
      const written = deps.audit.record({ ...audit, projectId, actor: ADMIN_ACTOR, outcome: "success", status: typeof set.status === "number" ? set.status : 200, sourceIp: auditSources.get(request) ?? null });
      // Multi-instance: PostgreSQL's write is awaited before the answer (its failure answers 503).
      if (written instanceof Promise) return written.then(() => undefined);
    })
    // A failed call never reached onAfterHandle: the app's error handler answered first, so its
    // entry is written once the answer is out (no action took place to be acknowledged).
    .onAfterResponse((ctx) => {
      if (!("error" in ctx) || ctx.error === undefined) return;
      const { request, route, params, error } = ctx;
      const status = statusOf("code" in ctx ? ctx.code : undefined, error);
      if (status === 429) return;
      const audit = adminAuditOf({ method: request.method, route: route.replace(/^.*?\/admin(?=\/)/, ""), params: params ?? {}, body: auditBodies.get(request) ?? null, response: null });
      try {
        deps.audit.record({ ...audit, actor: ADMIN_ACTOR, outcome: "failure", status, sourceIp: auditSources.get(request) ?? null, details: { ...audit.details, error: error instanceof GwError ? error.code : "internal_error" } });
      } catch (err) {
        deps.logger.error({ err, action: audit.action }, "audit log write failed");
      }
    })
    // Any admin write may change a key or a project that a cached key resolves to.
    .onAfterHandle(({ request }) => {
      if (request.method === "GET") return;
      deps.authCache.clear();
      deps.projectProviders.clear();
    })
    .use(alertRoutes(deps))
    .use(webhookRoutes(deps))
    .use(statusAdminRoutes(deps))
    .post("/projects", async ({ request, set }) => {
      const input = validateCreate(await readJson(request));
      assertCidrs(input.policy?.ip_allowlist, "policy.ip_allowlist");
      const w = writerOf(deps);
      const project = createProject(w.repos.projects, input);
      return w.commit(() => {
        set.status = 201;
        return projectView(project, 0);
      });
    }, { parse: "none" })
    // Every project, oldest first, in one page (an operator has tens, not millions).
    .get("/projects", () => {
      const projects = deps.repos.projects.list();
      return withBalances(deps.billing, deps.shared?.money ?? null, projects.map((p) => p.id), (balances) => ({
        object: "list", data: projects.map((p, i) => projectView(p, balances[i])), has_more: false,
      }));
    })
    .get("/projects/:id", ({ params }) => withRows(deps, { project: params.id }, () => {
      const project = projectOr404(deps, params.id);
      return withBalance(deps.billing, deps.shared?.money ?? null, project.id, (balance) => projectView(project, balance));
    }))
    .patch("/projects/:id", async ({ request, params }) => {
      const { input, nullKeys } = parseProjectPatch(await readJson(request));
      const update = () => {
        const w = writerOf(deps);
        const project = updateProject(w.repos.projects, params.id, input, nullKeys);
        return w.commit(() => withBalance(deps.billing, deps.shared?.money ?? null, params.id, (balance) => projectView(project, balance)));
      };
      // Multi-instance: merged into PostgreSQL's current row, not a mirror a message behind.
      return deps.shared ? deps.shared.mirror.updating(params.id, update) : update();
    }, { parse: "none" })
    // The project's keys, revoked ones included, oldest first: never a secret or a hash.
    .get("/projects/:id/keys", ({ params }) => withRows(deps, { project: params.id }, () => ({
      object: "list", data: deps.repos.apiKeys.listByProject(projectOr404(deps, params.id).id).map(keyView), has_more: false,
    })))
    .post("/projects/:id/keys", async ({ request, params, set }) => withRows(deps, { project: params.id }, async () => {
      const project = projectOr404(deps, params.id);
      const input = validateKey(await readJson(request));
      assertCidrs(input.ip_allowlist, "ip_allowlist");
      const w = writerOf(deps);
      const { key, secret } = issueKey(w.repos.apiKeys, {
        projectId: project.id, name: input.name ?? null, scopes: input.scopes ?? null, mode: input.mode ?? "live",
        byok: input.byok ?? false, ipAllowlist: input.ip_allowlist ?? null,
      });
      return w.commit(() => {
        deps.eventSources.keyCreated(key);
        set.status = 201;
        return issuedKeyView(key, secret);
      });
    }), { parse: "none" })
    .delete("/keys/:key_id", ({ params }) => withRows(deps, { key: params.key_id }, () => {
      const w = writerOf(deps);
      const key = w.repos.apiKeys.revoke(params.key_id, Date.now());
      if (!key) throw new GwError("not_found", `No key '${params.key_id}'.`, { param: "key_id" });
      return w.commit(() => {
        deps.eventSources.keyRevoked(key);
        return { object: "key", id: key.id, revoked: true };
      });
    }))
    .put("/projects/:id/provider-keys/:provider", async ({ request, params }) => withRows(deps, { project: params.id }, async () => {
      projectOr404(deps, params.id);
      const body = validateProviderKey(await readJson(request));
      const w = writerOf(deps);
      const view = putProviderKey(w.repos.providerKeys, deps.secrets, params.id, params.provider, body);
      return w.commit(() => view);
    }), { parse: "none" })
    .delete("/projects/:id/provider-keys/:provider", ({ params }) => withRows(deps, { project: params.id }, () => {
      projectOr404(deps, params.id);
      const w = writerOf(deps);
      const view = deleteProviderKey(w.repos.providerKeys, params.id, params.provider);
      return w.commit(() => view);
    }))
    .post("/projects/:id/credits", async ({ request, params }) => {
      if (deps.shared) await withRows(deps, { project: params.id }, () => undefined);
      projectOr404(deps, params.id);
      const { amount } = validateCredits(await readJson(request));
      // Multi-instance: the credit is PostgreSQL's (docs/scale-out.md "PostgreSQL").
      if (deps.shared) return addSharedCredits(deps.shared.money, params.id, amount, "admin api", deps.clock.now());
      return addCredits(deps.billing, params.id, amount, "admin api");
    }, { parse: "none" })
    // SSO for the project's dashboard (docs/dashboard.md "Single sign-on (OIDC)"): plan business only.
    // Multi-instance: the clients are PostgreSQL's, this instance's copy written after (docs/scale-out.md).
    .put("/projects/:id/sso", async ({ request, params }) => {
      const project = projectOr404(deps, params.id);
      const body = parseSsoBody(await readJson(request));
      if (deps.shared) return putSharedSso({ store: postgresSsoStore(deps.shared.pg), local: deps.repos.projectSso }, deps.secrets, project, body, deps.clock.now());
      return putSso(deps.repos.projectSso, deps.secrets, project, body, deps.clock.now());
    }, { parse: "none" })
    .get("/projects/:id/sso", async ({ params }) => {
      if (deps.shared) return await getSharedSso({ store: postgresSsoStore(deps.shared.pg), local: deps.repos.projectSso }, projectOr404(deps, params.id).id);
      return getSso(deps.repos.projectSso, projectOr404(deps, params.id).id);
    })
    .delete("/projects/:id/sso", async ({ params }) => {
      if (deps.shared) return await deleteSharedSso({ store: postgresSsoStore(deps.shared.pg), local: deps.repos.projectSso }, projectOr404(deps, params.id).id);
      return deleteSso(deps.repos.projectSso, projectOr404(deps, params.id).id);
    })
    // The audit log (docs/dashboard.md "Audit log"), newest first; `?project_id=` narrows it.
    .get("/audit-log", ({ request }) => {
      const query = new URL(request.url).searchParams;
      const projectId = query.get("project_id");
      return deps.audit.listView({ ...auditPageQuery(query), projectId: projectId ?? undefined });
    })
    // Monthly invoices from the ledger (docs/billing.md); `?month=YYYY-MM` for one month.
    .get("/projects/:id/invoices", ({ params, query }) => {
      const project = projectOr404(deps, params.id);
      // Multi-instance: every instance's charges are in PostgreSQL's ledger (docs/scale-out.md).
      if (deps.shared) return listSharedInvoices(postgresInvoiceLedger(deps.shared.pg), project, typeof query.month === "string" ? query.month : undefined, deps.clock.now());
      deps.billing.writer.flush();
      return listInvoices(deps.repos.ledger, project, typeof query.month === "string" ? query.month : undefined, deps.clock.now());
    });
