// Everything the dashboard serves (docs/dashboard.md): its pages and assets, and its JSON API under
// /dashboard/api. Never the chat pipeline: the API reads the stores and acts through the same
// functions as the public and admin APIs.
import { Elysia } from "elysia";
import type { Deps } from "../pipeline/deps.ts";
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

export const dashboardRoutes = (deps: Deps) =>
  new Elysia({ name: "gw-dashboard" })
    // Before the dashboard's headers: the public status page sets its own (no script at all).
    .use(statusRoutes(deps))
    // First: the security headers apply to the routes registered after them (docs/dashboard.md "Security headers").
    .use(dashboardSecurityHeaders)
    .use(pagesRoute())
    .use(sessionRoutes(deps, DASHBOARD_API_PREFIX))
    .use(auditRoutes(deps, DASHBOARD_API_PREFIX))
    .use(ssoRoutes(deps, DASHBOARD_API_PREFIX))
    .use(dashboardRequestsRoutes(deps, DASHBOARD_API_PREFIX))
    .use(overviewRoutes(deps, DASHBOARD_API_PREFIX))
    .use(cacheRoutes(deps, DASHBOARD_API_PREFIX))
    .use(recommendationsRoutes(deps, DASHBOARD_API_PREFIX))
    .use(monitoringRoutes(deps, DASHBOARD_API_PREFIX))
    .use(webhooksRoutes(deps, DASHBOARD_API_PREFIX))
    .use(alertRulesRoutes(deps, DASHBOARD_API_PREFIX))
    .use(statusAdminRoutes(deps, DASHBOARD_API_PREFIX))
    .use(projectsRoutes(deps, DASHBOARD_API_PREFIX));
