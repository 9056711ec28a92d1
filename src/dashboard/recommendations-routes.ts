// GET /dashboard/api/recommendations (docs/dashboard.md "Recommendations"): the rule in one sentence
// and what it recommends for the project, from its feedback and per-model rollups.
import { Elysia } from "elysia";
import { recommend, recommendationWindow, recommendFrom, RULE, RULE_TEXT } from "../monitoring/recommendations.ts";
import type { Deps } from "../pipeline/deps.ts";
import { READ_DRAIN_LIMIT_MS } from "../store/log-writer.ts";
import { ratingStats } from "../store/postgres/dashboard-reads.ts";
import { modelRows } from "../store/postgres/model-rollups.ts";
import type { SharedState } from "../store/shared.ts";
import { modelRollupsRepo } from "../store/repos/model-rollups.ts";
import { viewReads } from "../store/repos/view-reads.ts";
import { dashboardSession } from "./session-plugin.ts";

export const recommendationsRoutes = (deps: Deps, prefix: string) => {
  const sources = { models: modelRollupsRepo(deps.db), reads: viewReads(deps.db) };
  return new Elysia({ name: "gw-dashboard-recommendations", prefix })
    .use(dashboardSession(deps))
    .get(
      "/recommendations",
      async ({ projectId }) => {
        if (deps.logWriter.pending > 0) await deps.logWriter.drainWithin(READ_DRAIN_LIMIT_MS);
        const policy = deps.repos.projects.get(projectId)?.policy ?? {};
        if (deps.shared) {
          const data = await sharedRecommendations(deps.shared, projectId, { cacheOn: policy.cache !== false, semanticOn: policy.semantic_cache === true }, deps.clock.now());
          return { object: "list", rule: RULE_TEXT, data };
        }
        const data = recommend(sources, projectId, { cacheOn: policy.cache !== false, semanticOn: policy.semantic_cache === true }, deps.clock.now());
        return { object: "list", rule: RULE_TEXT, data };
      },
      { dash: { scope: "requests" } },
    );
};

/** Multi-instance: `recommend`'s rule over every instance's per-model rollups and ratings in PostgreSQL
 * (the rows read ahead, then summed as `recommend` sums them). */
async function sharedRecommendations(shared: SharedState, projectId: string, policy: { cacheOn: boolean; semanticOn: boolean }, now: number) {
  const { from, to } = recommendationWindow(now);
  const [rows, ratings] = await Promise.all([modelRows(shared.pg, projectId, from, to), ratingStats(shared.pg, projectId, from)]);
  return recommendFrom(rows, ratings, policy);
}
