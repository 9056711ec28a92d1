// Composes the HTTP app: the one file that lists every route (architecture: app.ts).
import { Elysia } from "elysia";
import { API_BASE_PATH } from "./config/constants.ts";
import type { Deps } from "./deps.ts";
import { adminRoutes } from "./http/admin/admin-routes.ts";
import { prometheusRoute } from "./http/admin/prometheus-route.ts";
import { contextPlugin } from "./http/context.ts";
import { cacheInvalidateRoute } from "./http/routes/cache-invalidate.ts";
import { chatCompletionsRoute } from "./http/routes/chat-completions.ts";
import { embeddingsRoute } from "./http/routes/embeddings.ts";
import { feedbackRoute } from "./http/routes/feedback.ts";
import { metricsRoute } from "./http/routes/metrics.ts";
import { modelsRoute } from "./http/routes/models.ts";
import { requestsRoute } from "./http/routes/requests.ts";
import { responsesRoute } from "./http/routes/responses.ts";

export function createApp(deps: Deps) {
  const api = new Elysia({ prefix: API_BASE_PATH })
    .use(chatCompletionsRoute(deps))
    .use(embeddingsRoute(deps))
    .use(responsesRoute(deps))
    .use(modelsRoute(deps))
    .use(requestsRoute(deps))
    .use(metricsRoute(deps))
    .use(feedbackRoute(deps))
    .use(cacheInvalidateRoute(deps));
  if (deps.config.adminToken) api.use(adminRoutes(deps, deps.config.adminToken));
  if (deps.config.adminToken && deps.prometheus) api.use(prometheusRoute(deps, deps.prometheus, deps.config.adminToken));
  return new Elysia().use(contextPlugin(deps.logger)).use(api);
}

export type App = ReturnType<typeof createApp>;
