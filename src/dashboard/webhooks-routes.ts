// Webhook endpoints in the dashboard (docs/dashboard.md "Monitoring API"): sessions with scope `requests`
// read a project's endpoints and deliveries; the operator writes, through deps.webhooks as the admin API does.
import { Elysia } from "elysia";
import { GwError } from "../errors/gw-error.ts";
import { WEBHOOK_EVENT_TYPES } from "../monitoring/webhooks/event.ts";
import type { Deps } from "../pipeline/deps.ts";
import { auditedWrite } from "./audited-routes.ts";
import { dashboardSession } from "./session-plugin.ts";
import type { Viewer } from "./viewer.ts";

const OPERATOR = { dash: { operator: true as const }, parse: "none" as const };

export const webhooksRoutes = (deps: Deps, prefix: string) => {
  /** A read of an endpoint: 404 when it is missing or (for a project session) another project's. */
  const endpointOr404 = async (id: string, viewer: Viewer, projectId: string) => {
    const w = await deps.webhooks.get(id);
    if (!w || (viewer.role !== "operator" && w.project_id !== projectId)) throw new GwError("not_found", `No webhook endpoint '${id}'.`, { param: "webhook_id" });
    return w;
  };
  const hookProject = (id: string) => deps.webhooks.ownerOf({ webhookId: id });
  // `all_events` saves the page comparing `events` with a catalogue it does not ship.
  const withAll = <T extends { events: string[] }>(v: T) => ({ ...v, all_events: WEBHOOK_EVENT_TYPES.every((t) => v.events.includes(t)) });

  return new Elysia({ name: "gw-dashboard-webhooks", prefix })
    .use(dashboardSession(deps))
    .get("/monitoring/webhooks", async ({ projectId }) => {
      const list = await deps.webhooks.list(projectId);
      return { ...list, data: list.data.map(withAll) };
    }, { dash: { scope: "requests" } })
    .get("/monitoring/webhooks/:webhook_id/deliveries", async ({ params, query, viewer, projectId }) => {
      await endpointOr404(params.webhook_id, viewer, projectId);
      const limit = query.limit === undefined ? undefined : Number(query.limit);
      return deps.webhooks.deliveries(params.webhook_id, { limit: Number.isFinite(limit) ? limit : undefined, after: query.after || undefined });
    }, { dash: { scope: "requests" } })
    .post("/monitoring/webhooks", ({ viewer, request, server, projectId, set }) =>
      auditedWrite(deps, { viewer, request, server }, { method: "POST", route: "/projects/:id/webhooks", params: { id: projectId }, projectId, status: 201 }, async (body) => {
        const created = await deps.webhooks.create(projectId, body);
        set.status = 201;
        return withAll(created);
      }), OPERATOR)
    // Writes: the service answers 404 for a missing id, inside the audited call (a failure is audited too).
    .patch("/monitoring/webhooks/:webhook_id", async ({ viewer, request, server, params }) =>
      auditedWrite(deps, { viewer, request, server }, { method: "PATCH", route: "/webhooks/:webhook_id", params, projectId: await hookProject(params.webhook_id) },
        async (body) => withAll(await deps.webhooks.update(params.webhook_id, body))), OPERATOR)
    .delete("/monitoring/webhooks/:webhook_id", async ({ viewer, request, server, params }) =>
      auditedWrite(deps, { viewer, request, server }, { method: "DELETE", route: "/webhooks/:webhook_id", params, projectId: await hookProject(params.webhook_id) },
        () => deps.webhooks.remove(params.webhook_id)), OPERATOR)
    .post("/monitoring/webhooks/:webhook_id/rotate-secret", async ({ viewer, request, server, params }) =>
      auditedWrite(deps, { viewer, request, server }, { method: "POST", route: "/webhooks/:webhook_id/rotate-secret", params, projectId: await hookProject(params.webhook_id) },
        async () => withAll(await deps.webhooks.rotateSecret(params.webhook_id))), OPERATOR)
    .post("/monitoring/webhooks/:webhook_id/test", async ({ viewer, request, server, params }) =>
      auditedWrite(deps, { viewer, request, server }, { method: "POST", route: "/webhooks/:webhook_id/test", params, projectId: await hookProject(params.webhook_id) },
        () => deps.webhooks.sendTest(params.webhook_id)), OPERATOR)
    .post("/monitoring/webhook-deliveries/:delivery_id/replay", async ({ viewer, request, server, params }) =>
      auditedWrite(deps, { viewer, request, server }, { method: "POST", route: "/webhook-deliveries/:delivery_id/replay", params, projectId: await deps.webhooks.ownerOf({ deliveryId: params.delivery_id }) },
        () => deps.webhooks.replay(params.delivery_id)), OPERATOR);
};
