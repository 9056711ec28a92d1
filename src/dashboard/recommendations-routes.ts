// GET /dashboard/api/recommendations (docs/dashboard.md "Recommendations"): the rule in one sentence
// and what it recommends for the project, from its feedback and per-model rollups.
import { Elysia } from "elysia";
import { recommend, RULE_TEXT } from "../monitoring/recommendations.ts";
import type { Deps } from "../pipeline/deps.ts";
import { READ_DRAIN_LIMIT_MS } from "../store/log-writer.ts";
import { modelRollupsRepo } from "../store/repos/model-rollups.ts";
import { viewReads } from "../store/repos/view-reads.ts";
import { notShared } from "./not-shared.ts";
import { dashboardSession } from "./session-plugin.ts";

export const recommendationsRoutes = (deps: Deps, prefix: string) => {
  const sources = { models: modelRollupsRepo(deps.db), reads: viewReads(deps.db) };
  return new Elysia({ name: "gw-dashboard-recommendations", prefix })
    .use(dashboardSession(deps))
    .get(
      "/recommendations",
      async ({ projectId }) => {
        // Multi-instance: feedback sums and per-model rollups are not read from PostgreSQL yet.
        if (deps.shared) throw notShared("Recommendations");
        if (deps.logWriter.pending > 0) await deps.logWriter.drainWithin(READ_DRAIN_LIMIT_MS);
        const policy = deps.repos.projects.get(projectId)?.policy ?? {};
        const data = recommend(sources, projectId, { cacheOn: policy.cache !== false, semanticOn: policy.semantic_cache === true }, deps.clock.now());
        return { object: "list", rule: RULE_TEXT, data };
      },
      { dash: { scope: "requests" } },
    );
};
