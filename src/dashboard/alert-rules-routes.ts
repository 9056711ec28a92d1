// Alert rules and incidents in the dashboard (docs/dashboard.md "Monitoring API"): sessions with scope
// `requests` read a project's rules (with their state) and incidents; the operator writes rules.
import { Elysia } from "elysia";
import { GwError } from "../errors/gw-error.ts";
import type { Deps } from "../pipeline/deps.ts";
import { auditedWrite } from "./audited-routes.ts";
import { dashboardSession } from "./session-plugin.ts";

const OPERATOR = { dash: { operator: true as const }, parse: "none" as const };
/** Resolved incidents shown under the open ones. */
const RECENT_INCIDENTS = 20;

export const alertRulesRoutes = (deps: Deps, prefix: string) => {
  const ruleOr404 = (id: string) => {
    const r = deps.alerts.get(id);
    if (!r) throw new GwError("not_found", `No alert rule '${id}'.`, { param: "rule_id" });
    return r;
  };

  return new Elysia({ name: "gw-dashboard-alert-rules", prefix })
    .use(dashboardSession(deps))
    .get("/monitoring/alert-rules", ({ projectId }) => deps.alerts.list(projectId), { dash: { scope: "requests" } })
    .get("/monitoring/incidents", ({ projectId }) => {
      const open = deps.alerts.incidents(projectId, { status: "opened", limit: 100 }).data;
      const recent = deps.alerts.incidents(projectId, { status: "resolved", limit: RECENT_INCIDENTS }).data;
      return { object: "list", data: [...open, ...recent] };
    }, { dash: { scope: "requests" } })
    .post("/monitoring/alert-rules", ({ viewer, request, server, projectId, set }) =>
      auditedWrite(deps, { viewer, request, server }, { method: "POST", route: "/projects/:id/alert-rules", params: { id: projectId }, projectId, status: 201 }, (body) => {
        const rule = deps.alerts.create(projectId, body);
        set.status = 201;
        return rule;
      }), OPERATOR)
    .patch("/monitoring/alert-rules/:rule_id", ({ viewer, request, server, params }) => {
      const r = ruleOr404(params.rule_id);
      return auditedWrite(deps, { viewer, request, server }, { method: "PATCH", route: "/alert-rules/:rule_id", params, projectId: r.project_id }, (body) => deps.alerts.update(r.id, body));
    }, OPERATOR)
    .delete("/monitoring/alert-rules/:rule_id", ({ viewer, request, server, params }) => {
      const r = ruleOr404(params.rule_id);
      return auditedWrite(deps, { viewer, request, server }, { method: "DELETE", route: "/alert-rules/:rule_id", params, projectId: r.project_id }, () => deps.alerts.remove(r.id));
    }, OPERATOR);
};
