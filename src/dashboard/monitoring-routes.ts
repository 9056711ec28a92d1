// GET /dashboard/api/monitoring (docs/dashboard.md "Monitoring API"): the live state of the circuit
// breakers of gw's own provider keys, per provider and per model. Tenants' own keys (BYOK) are
// never in it. Counts of samples are the operator's only: they reflect every project's traffic.
import { Elysia } from "elysia";
import type { Deps } from "../pipeline/deps.ts";
import { dashboardSession } from "./session-plugin.ts";

export const monitoringRoutes = (deps: Deps, prefix: string) =>
  new Elysia({ name: "gw-dashboard-monitoring", prefix })
    .use(dashboardSession(deps))
    .get("/monitoring", ({ viewer }) => {
      const operator = viewer.role === "operator";
      const providers = deps.health.snapshot().map((h) => {
        const slash = h.key.indexOf("/");
        return {
          provider: slash < 0 ? h.key : h.key.slice(0, slash),
          model: slash < 0 ? null : h.key,
          state: h.state,
          error_rate: Math.round(h.errorRate * 1000) / 1000,
          latency_ms: h.latencyMs === null ? null : Math.round(h.latencyMs),
          opened_at: h.openedAt === null ? null : new Date(h.openedAt).toISOString(),
          ...(operator ? { samples: h.samples, consecutive_failures: h.consecutiveFailures } : {}),
        };
      });
      return { object: "dashboard.monitoring", providers };
    }, { dash: { scope: "requests" } });
