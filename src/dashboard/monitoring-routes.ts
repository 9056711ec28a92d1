// GET /dashboard/api/monitoring (docs/dashboard.md "Monitoring API"): the live state of the circuit
// breakers of gw's own provider keys, per provider and per model. Tenants' own keys (BYOK) are
// never in it. Counts of samples are the operator's only: they reflect every project's traffic. With
// several instances a circuit opened on any of them shows open (its shared flag); rates and samples
// are this instance's measurements (docs/scale-out.md).
import { Elysia } from "elysia";
import type { Deps } from "../pipeline/deps.ts";
import { modelKey, type HealthSnapshot } from "../routing/health.ts";
import { dashboardSession } from "./session-plugin.ts";

/** This instance's breakers, with the circuits flagged open by any instance; Redis out of reach:
 * this instance's view alone. */
async function breakers(deps: Deps): Promise<HealthSnapshot[]> {
  const local = deps.health.snapshot();
  if (!deps.shared) return local;
  const keys = [...new Set(deps.catalog.models.flatMap((m) => [m.provider, modelKey(m.provider, m.id)]))];
  const flags = await deps.shared.fast.circuitFlags.raised(keys, deps.clock.now()).catch(() => null);
  if (!flags || flags.size === 0) return local;
  const seen = new Set(local.map((h) => h.key));
  const flagged = [...flags.keys()].filter((key) => !seen.has(key)).sort()
    .map((key): HealthSnapshot => ({ key, state: "open", errorRate: 0, latencyMs: null, samples: 0, consecutiveFailures: 0, openedAt: null }));
  return [...local.map((h) => (flags.has(h.key) && h.state !== "open" ? { ...h, state: "open" as const } : h)), ...flagged];
}

export const monitoringRoutes = (deps: Deps, prefix: string) =>
  new Elysia({ name: "gw-dashboard-monitoring", prefix })
    .use(dashboardSession(deps))
    .get("/monitoring", async ({ viewer }) => {
      const operator = viewer.role === "operator";
      const providers = (await breakers(deps)).map((h) => {
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
