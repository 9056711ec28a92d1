// GET /dashboard/api/audit (docs/dashboard.md "Audit log"): the operator reads every entry (or one
// project's with ?project=); a project session reads its own project's, on plan business only.
import { Elysia } from "elysia";
import { AUDIT_PAGE_MAX, auditListView } from "../audit/audit-log.ts";
import { GwError, invalidRequest } from "../errors/gw-error.ts";
import type { Deps } from "../pipeline/deps.ts";
import { dashboardSession } from "./session-plugin.ts";

/** `limit` and `after` of an audit list query, checked (shared with the admin API's audit-log endpoint). */
export function auditPageQuery(params: URLSearchParams): { limit?: number; after?: string } {
  const rawLimit = params.get("limit");
  let limit: number | undefined;
  if (rawLimit !== null) {
    limit = Number(rawLimit);
    if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_PAGE_MAX) throw invalidRequest(`limit must be an integer from 1 to ${AUDIT_PAGE_MAX}.`, "limit");
  }
  const after = params.get("after");
  if (after !== null && !/^aud_[0-9a-z]{22}$/.test(after)) throw invalidRequest("after must be a next_cursor this endpoint returned.", "after");
  return { limit, after: after ?? undefined };
}

export const auditRoutes = (deps: Deps, prefix: string) =>
  new Elysia({ name: "gw-dashboard-audit", prefix })
    .use(dashboardSession(deps))
    .get("/audit", ({ request, viewer, projectId }) => {
      const params = new URL(request.url).searchParams;
      const page = auditPageQuery(params);
      if (viewer.role === "operator") {
        return auditListView(deps.audit.list({ ...page, projectId: params.has("project") ? projectId : undefined }));
      }
      if (deps.repos.projects.get(projectId)?.plan !== "business") throw new GwError("permission_denied", "The audit log needs plan business.");
      return auditListView(deps.audit.list({ ...page, projectId }));
    }, { dash: true });
