// The status page's operator posts in the admin API (docs/api.md "Admin API", docs/monitoring.md
// "Status posts"); used after admin-routes.ts' gate and audit hooks.
import { Elysia } from "elysia";
import { invalidRequest } from "../../errors/gw-error.ts";
import type { Deps } from "../../pipeline/deps.ts";
import { parseJsonObject, readBodyText } from "../../schema/validate.ts";

const readJson = async (request: Request) => parseJsonObject(await readBodyText(request));

/** `?limit=` (1..100) and `?after=` (the previous page's last id). */
function pageQuery(params: URLSearchParams): { limit?: number; after?: string } {
  const q: { limit?: number; after?: string } = {};
  const limit = params.get("limit");
  if (limit !== null) {
    const n = Number(limit);
    if (!Number.isInteger(n) || n < 1 || n > 100) throw invalidRequest("Invalid value for 'limit': expected an integer from 1 to 100.", "limit");
    q.limit = n;
  }
  const after = params.get("after");
  if (after !== null && after !== "") q.after = after;
  return q;
}

export const statusAdminRoutes = (deps: Deps) => {
  // Multi-instance: the posts are PostgreSQL's, so any instance edits them (docs/scale-out.md).
  return new Elysia()
    .get("/status/posts", ({ request }) => deps.statusPage.posts(pageQuery(new URL(request.url).searchParams)))
    .post("/status/incidents", async ({ request, set }) => {
      const post = await deps.statusPage.createIncident(await readJson(request));
      set.status = 201;
      return post;
    }, { parse: "none" })
    .post("/status/maintenances", async ({ request, set }) => {
      const post = await deps.statusPage.createMaintenance(await readJson(request));
      set.status = 201;
      return post;
    }, { parse: "none" })
    .patch("/status/posts/:post_id", async ({ request, params }) => deps.statusPage.updatePost(params.post_id, await readJson(request)), { parse: "none" })
    .post("/status/posts/:post_id/updates", async ({ request, params, set }) => {
      const post = await deps.statusPage.addUpdate(params.post_id, await readJson(request));
      set.status = 201;
      return post;
    }, { parse: "none" })
    .delete("/status/posts/:post_id", ({ params }) => deps.statusPage.removePost(params.post_id));
};
