// Webhook endpoints in the admin API (docs/api.md "Admin API", docs/webhooks.md "Endpoints"); used
// after admin-routes.ts' gate and audit hooks. The secret is answered only by create and rotate.
import { Elysia } from "elysia";
import { GwError, invalidRequest } from "../../errors/gw-error.ts";
import type { Deps } from "../../pipeline/deps.ts";
import { parseJsonObject, readBodyText } from "../../schema/validate.ts";

const readJson = async (request: Request) => parseJsonObject(await readBodyText(request));

/** `?limit=` (1-100) and `?after=` (the last delivery id of the previous page). */
function pageQuery(url: string): { limit?: number; after?: string } {
  const query = new URL(url).searchParams;
  const limit = query.get("limit");
  const after = query.get("after");
  if (limit !== null && !/^(100|[1-9]\d?)$/.test(limit)) throw invalidRequest("`limit` must be a whole number from 1 to 100.", "limit");
  return { ...(limit !== null ? { limit: Number(limit) } : {}), ...(after !== null && after !== "" ? { after } : {}) };
}

export const webhookRoutes = (deps: Deps) => {
  const projectOr404 = (id: string): string => {
    if (!deps.repos.projects.get(id)) throw new GwError("not_found", `No project '${id}'.`, { param: "id" });
    return id;
  };
  // Multi-instance: the same endpoints and deliveries on every instance, PostgreSQL's (docs/scale-out.md).
  return new Elysia()
    .post("/projects/:id/webhooks", async ({ request, params, set }) => {
      const projectId = projectOr404(params.id);
      const created = await deps.webhooks.create(projectId, await readJson(request));
      set.status = 201;
      return created;
    }, { parse: "none" })
    .get("/projects/:id/webhooks", ({ params }) => deps.webhooks.list(projectOr404(params.id)))
    .patch("/webhooks/:webhook_id", async ({ request, params }) => deps.webhooks.update(params.webhook_id, await readJson(request)), { parse: "none" })
    .delete("/webhooks/:webhook_id", ({ params }) => deps.webhooks.remove(params.webhook_id))
    .post("/webhooks/:webhook_id/rotate-secret", ({ params }) => deps.webhooks.rotateSecret(params.webhook_id))
    .post("/webhooks/:webhook_id/test", ({ params }) => deps.webhooks.sendTest(params.webhook_id))
    .get("/webhooks/:webhook_id/deliveries", ({ request, params }) => deps.webhooks.deliveries(params.webhook_id, pageQuery(request.url)))
    .post("/webhook-deliveries/:delivery_id/replay", ({ params }) => deps.webhooks.replay(params.delivery_id));
};
