// Status posts in the dashboard (docs/dashboard.md "Monitoring API"), operator only: the incidents and
// maintenance windows of the public status page, through deps.statusPage as the admin API does.
import { Elysia } from "elysia";
import type { Deps } from "../pipeline/deps.ts";
import { auditedWrite } from "./audited-routes.ts";
import { dashboardSession } from "./session-plugin.ts";

const OPERATOR = { dash: { operator: true as const }, parse: "none" as const };

export const statusAdminRoutes = (deps: Deps, prefix: string) =>
  new Elysia({ name: "gw-dashboard-status-admin", prefix })
    .use(dashboardSession(deps))
    .get("/monitoring/status/posts", ({ query }) => {
      const limit = query.limit === undefined ? undefined : Number(query.limit);
      return deps.statusPage.posts({ limit: Number.isFinite(limit) ? limit : undefined, after: query.after || undefined });
    }, { dash: { operator: true } })
    .post("/monitoring/status/incidents", ({ viewer, request, server, set }) =>
      auditedWrite(deps, { viewer, request, server }, { method: "POST", route: "/status/incidents", params: {}, projectId: null, status: 201 }, async (body) => {
        const post = await deps.statusPage.createIncident(body);
        set.status = 201;
        return post;
      }), OPERATOR)
    .post("/monitoring/status/maintenances", ({ viewer, request, server, set }) =>
      auditedWrite(deps, { viewer, request, server }, { method: "POST", route: "/status/maintenances", params: {}, projectId: null, status: 201 }, async (body) => {
        const post = await deps.statusPage.createMaintenance(body);
        set.status = 201;
        return post;
      }), OPERATOR)
    .patch("/monitoring/status/posts/:post_id", ({ viewer, request, server, params }) =>
      auditedWrite(deps, { viewer, request, server }, { method: "PATCH", route: "/status/posts/:post_id", params, projectId: null }, (body) => deps.statusPage.updatePost(params.post_id, body)), OPERATOR)
    .post("/monitoring/status/posts/:post_id/updates", ({ viewer, request, server, params, set }) =>
      auditedWrite(deps, { viewer, request, server }, { method: "POST", route: "/status/posts/:post_id/updates", params, projectId: null, status: 201 }, async (body) => {
        const post = await deps.statusPage.addUpdate(params.post_id, body);
        set.status = 201;
        return post;
      }), OPERATOR)
    .delete("/monitoring/status/posts/:post_id", ({ viewer, request, server, params }) =>
      auditedWrite(deps, { viewer, request, server }, { method: "DELETE", route: "/status/posts/:post_id", params, projectId: null }, () => deps.statusPage.removePost(params.post_id)), OPERATOR);
