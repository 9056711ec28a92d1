// Everything the dashboard serves (docs/dashboard.md): its pages and assets, and its JSON API under
// /dashboard/api. Never the chat pipeline: the API reads the stores and acts through the same
// functions as the public and admin APIs.
import { type AnyElysia, Elysia } from "elysia";
import type { Deps } from "../pipeline/deps.ts";
import { notShared } from "./not-shared.ts";
import { pagesRoute } from "./pages-route.ts";
import { dashboardSecurityHeaders } from "./security-headers.ts";
import { sessionRoutes } from "./session-routes.ts";
import { auditRoutes } from "./audit-routes.ts";
import { ssoRoutes } from "./sso-routes.ts";
import { dashboardRequestsRoutes } from "./requests-routes.ts";
import { overviewRoutes } from "./overview-routes.ts";
import { cacheRoutes } from "./cache-routes.ts";
import { recommendationsRoutes } from "./recommendations-routes.ts";
import { monitoringRoutes } from "./monitoring-routes.ts";
import { webhooksRoutes } from "./webhooks-routes.ts";
import { alertRulesRoutes } from "./alert-rules-routes.ts";
import { statusAdminRoutes } from "./status-admin-routes.ts";
import { projectsRoutes } from "./projects-routes.ts";
import { statusRoutes } from "./status-routes.ts";

export const DASHBOARD_API_PREFIX = "/dashboard/api";

/** Multi-instance: groups whose state is not shared between instances yet answer 503 on their paths
 * (docs/scale-out.md). One line per group: its owner deletes it once the group reads shared stores. */
const NOT_SHARED_YET: Readonly<Record<string, { feature: string; paths: readonly string[] }>> = {
};

/** The group itself, or in the multi-instance mode its 503s while its line is in NOT_SHARED_YET. */
function unlessNotShared(deps: Deps, name: string, group: () => AnyElysia): AnyElysia {
  const gate = NOT_SHARED_YET[name];
  if (!deps.shared || !gate) return group();
  const refuse = () => {
    throw notShared(gate.feature);
  };
  const app = new Elysia({ name: `gw-dashboard-not-shared-${name}` });
  for (const path of gate.paths) app.all(path, refuse);
  return app;
}

export const dashboardRoutes = (deps: Deps) =>
  new Elysia({ name: "gw-dashboard" })
    // Before the dashboard's headers: the public status page sets its own (no script at all).
    .use(unlessNotShared(deps, "statusPage", () => statusRoutes(deps)))
    // First: the security headers apply to the routes registered after them (docs/dashboard.md "Security headers").
    .use(dashboardSecurityHeaders)
    .use(pagesRoute())
    .use(sessionRoutes(deps, DASHBOARD_API_PREFIX))
    .use(auditRoutes(deps, DASHBOARD_API_PREFIX))
    .use(unlessNotShared(deps, "sso", () => ssoRoutes(deps, DASHBOARD_API_PREFIX)))
    .use(dashboardRequestsRoutes(deps, DASHBOARD_API_PREFIX))
    .use(overviewRoutes(deps, DASHBOARD_API_PREFIX))
    .use(cacheRoutes(deps, DASHBOARD_API_PREFIX))
    .use(recommendationsRoutes(deps, DASHBOARD_API_PREFIX))
    .use(unlessNotShared(deps, "monitoring", () => monitoringRoutes(deps, DASHBOARD_API_PREFIX)))
    .use(unlessNotShared(deps, "webhooks", () => webhooksRoutes(deps, DASHBOARD_API_PREFIX)))
    .use(unlessNotShared(deps, "alertRules", () => alertRulesRoutes(deps, DASHBOARD_API_PREFIX)))
    .use(unlessNotShared(deps, "statusAdmin", () => statusAdminRoutes(deps, DASHBOARD_API_PREFIX)))
    .use(projectsRoutes(deps, DASHBOARD_API_PREFIX));
