// Alert rules and incidents in the admin API (docs/api.md "Admin API", docs/monitoring.md "Alert
// rules", "Incidents"); used after admin-routes.ts' gate and audit hooks.
import { Elysia } from "elysia";
import { GwError } from "../../errors/gw-error.ts";
import { incidentPageQuery } from "../../monitoring/alerts/alert-rules.ts";
import type { Deps } from "../../pipeline/deps.ts";
import { parseJsonObject, readBodyText } from "../../schema/validate.ts";

const readJson = async (request: Request) => parseJsonObject(await readBodyText(request));

export const alertRoutes = (deps: Deps) => {
  const projectOr404 = (id: string): string => {
    if (!deps.repos.projects.get(id)) throw new GwError("not_found", `No project '${id}'.`, { param: "id" });
    return id;
  };
  // Multi-instance: deps.alerts reads and writes PostgreSQL (docs/scale-out.md).
  return new Elysia()
    .post("/projects/:id/alert-rules", async ({ request, params, set }) => {
      const projectId = projectOr404(params.id);
      const rule = await deps.alerts.create(projectId, await readJson(request));
      set.status = 201;
      return rule;
    }, { parse: "none" })
    .get("/projects/:id/alert-rules", ({ params }) => deps.alerts.list(projectOr404(params.id)))
    .patch("/alert-rules/:rule_id", async ({ request, params }) => deps.alerts.update(params.rule_id, await readJson(request)), { parse: "none" })
    .delete("/alert-rules/:rule_id", ({ params }) => deps.alerts.remove(params.rule_id))
    // Newest first; `?status=opened|resolved`, `?limit=`, `?after=` (the previous page's next_cursor).
    .get("/projects/:id/incidents", ({ request, params }) =>
      deps.alerts.incidents(projectOr404(params.id), incidentPageQuery(new URL(request.url).searchParams)));
};
