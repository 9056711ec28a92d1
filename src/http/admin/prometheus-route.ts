// GET /v1/admin/metrics/prometheus (docs/observability.md "Export"): gw's series in the
// Prometheus text format 0.0.4, behind the admin token like the rest of /v1/admin; absent when
// GW_ADMIN_TOKEN is unset.
import { Elysia } from "elysia";
import type { Deps } from "../../pipeline/deps.ts";
import type { PrometheusMetrics } from "../../observability/prometheus-metrics.ts";
import { PROMETHEUS_CONTENT_TYPE } from "../../observability/prometheus-text.ts";
import type { AdminGate } from "./admin-gate.ts";
import { baseHeaders, requestIdPlugin } from "../context.ts";

export const prometheusRoute = (deps: Deps, metrics: PrometheusMetrics, gate: AdminGate) =>
  new Elysia({ prefix: "/admin" })
    .onBeforeHandle(({ request, server }) => gate.check(request, server))
    .use(requestIdPlugin)
    .get("/metrics/prometheus", ({ requestId }) =>
      new Response(
        metrics.render({
          health: deps.health.snapshot(),
          enabledProviders: deps.providers.enabled(),
          logQueueRows: deps.logWriter.pending,
          otlp: deps.otlp?.stats() ?? null,
        }),
        { headers: { ...baseHeaders(requestId), "content-type": PROMETHEUS_CONTENT_TYPE, "cache-control": "no-store" } },
      ));
