// Alert rules and incidents in the dashboard (docs/dashboard.md "Monitoring API"): sessions with scope
// `requests` read a project's rules (with their state) and incidents; the operator writes rules.
import { Elysia } from "elysia";
import type { Deps } from "../pipeline/deps.ts";
import { auditedWrite } from "./audited-routes.ts";
import { dashboardSession } from "./session-plugin.ts";

const OPERATOR = { dash: { operator: true as const }, parse: "none" as const };
/** Resolved incidents shown under the open ones. */
const RECENT_INCIDENTS = 20;

export const alertRulesRoutes = (deps: Deps, prefix: string) =>
  new Elysia({ name: "gw-dashboard-alert-rules", prefix })
    .use(dashboardSession(deps))
    .get("/monitoring/alert-rules", ({ projectId }) => deps.alerts.list(projectId), { dash: { scope: "requests" } })
    .get("/monitoring/incidents", async ({ projectId }) => {
      const [open, recent] = await Promise.all([
        deps.alerts.incidents(projectId, { status: "opened", limit: 100 }).then((p) => p.data),
        deps.alerts.incidents(projectId, { status: "resolved", limit: RECENT_INCIDENTS }).then((p) => p.data),
      ]);
      return { object: "list", data: [...open, ...recent] };
    }, { dash: { scope: "requests" } })
    .post("/monitoring/alert-rules", ({ viewer, request, server, projectId, set }) =>
      auditedWrite(deps, { viewer, request, server }, { method: "POST", route: "/projects/:id/alert-rules", params: { id: projectId }, projectId, status: 201 }, (body) => {
        const rule = deps.alerts.create(projectId, body);
        set.status = 201;
        return rule;
      }), OPERATOR)
    // The service answers 404 for a missing id, inside the audited call (a failure is audited too).
    .patch("/monitoring/alert-rules/:rule_id", async ({ viewer, request, server, params }) =>
      auditedWrite(deps, { viewer, request, server }, { method: "PATCH", route: "/alert-rules/:rule_id", params, projectId: await deps.alerts.ruleProject(params.rule_id) },
        (body) => deps.alerts.update(params.rule_id, body)), OPERATOR)
    .delete("/monitoring/alert-rules/:rule_id", async ({ viewer, request, server, params }) =>
      auditedWrite(deps, { viewer, request, server }, { method: "DELETE", route: "/alert-rules/:rule_id", params, projectId: await deps.alerts.ruleProject(params.rule_id) },
        () => deps.alerts.remove(params.rule_id)), OPERATOR);
