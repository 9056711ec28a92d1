// Composes the HTTP app: the one file that lists every route (docs/architecture.md "Layers").
import { Elysia } from "elysia";
import { API_BASE_PATH } from "../config/constants.ts";
import type { Deps } from "../pipeline/deps.ts";
import { adminRoutes } from "./admin/admin-routes.ts";
import { AdminGate } from "./admin/admin-gate.ts";
import { prometheusRoute } from "./admin/prometheus-route.ts";
import { contextPlugin, errorResponse } from "./context.ts";
import { corsPlugin } from "./cors.ts";
import { openApiRoute } from "./openapi/route.ts";
import { Lifecycle } from "./lifecycle.ts";
import { healthRoutes } from "./routes/health.ts";
import { GwError } from "../errors/gw-error.ts";
import { newRequestId } from "../lib/ids.ts";
import { cacheInvalidateRoute } from "./routes/cache-invalidate.ts";
import { chatCompletionsRoute } from "./routes/chat-completions.ts";
import { embeddingsRoute } from "./routes/embeddings.ts";
import { feedbackRoute } from "./routes/feedback.ts";
import { metricsRoute } from "./routes/metrics.ts";
import { modelsRoute } from "./routes/models.ts";
import { requestsRoute } from "./routes/requests.ts";
import { responsesRoute } from "./routes/responses.ts";
import { messagesRoute } from "./routes/messages.ts";
import { dashboardRoutes } from "../dashboard/routes.ts";

/** A stopping gw takes no new work on connections still open (docs/availability.md "Shutdown"). */
const draining = () => new GwError("service_unavailable", "gw is shutting down; retry on another instance.", { retryAfter: 1 });

export function createApp(deps: Deps, lifecycle: Lifecycle = new Lifecycle()) {
  const api = new Elysia({ prefix: API_BASE_PATH })
    .use(chatCompletionsRoute(deps))
    .use(embeddingsRoute(deps))
    .use(responsesRoute(deps))
    .use(messagesRoute(deps))
    .use(modelsRoute(deps))
    .use(requestsRoute(deps))
    .use(metricsRoute(deps))
    .use(feedbackRoute(deps))
    .use(cacheInvalidateRoute(deps));
  if (deps.config.adminToken) {
    // One gate for the admin API and the Prometheus route: they share the failure counts.
    const gate = new AdminGate(deps, deps.config.adminToken, () => deps.clock.now());
    api.use(adminRoutes(deps, gate));
    if (deps.prometheus) api.use(prometheusRoute(deps, deps.prometheus, gate));
  }
  const app = new Elysia()
    .use(corsPlugin(deps.config.corsOrigins))
    .use(contextPlugin(deps.logger))
    .onRequest(({ request }) => {
      lifecycle.requests++;
      if (lifecycle.draining && request.method !== "GET") return errorResponse(draining(), newRequestId());
    })
    .use(healthRoutes(lifecycle))
    .use(dashboardRoutes(deps))
    .use(api);
  // Described from the app's own route list, read on its first call (docs/api.md "OpenAPI").
  return app.use(openApiRoute(() => app.routes));
}

export type App = ReturnType<typeof createApp>;
