// GET /dashboard/api/audit (docs/dashboard.md "Audit log"): the operator reads every entry (or one
// project's with ?project=); a project session reads its own project's, on plan business only.
import { Elysia } from "elysia";
import { auditPageQuery } from "../audit/audit-log.ts";
import { GwError } from "../errors/gw-error.ts";
import type { Deps } from "../pipeline/deps.ts";
import { dashboardSession } from "./session-plugin.ts";

export const auditRoutes = (deps: Deps, prefix: string) =>
  new Elysia({ name: "gw-dashboard-audit", prefix })
    .use(dashboardSession(deps))
    .get("/audit", ({ request, viewer, projectId }) => {
      const params = new URL(request.url).searchParams;
      const page = auditPageQuery(params);
      if (viewer.role === "operator") {
        return deps.audit.listView({ ...page, projectId: params.has("project") ? projectId : undefined });
      }
      if (deps.repos.projects.get(projectId)?.plan !== "business") throw new GwError("permission_denied", "The audit log needs plan business.");
      return deps.audit.listView({ ...page, projectId });
    }, { dash: true });
