// A status page input at the sizes the issue names: API, Routing, Cache and five providers, 90 days
// of daily counts, incidents and a maintenance window; shared by the status tests.
import type { StatusComponentInput, StatusIncidentInput, StatusInput } from "../../../src/monitoring/status/summary.ts";
import { lastDays } from "../../../src/monitoring/status/uptime.ts";

export const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export function component(id: string, over: Partial<StatusComponentInput> = {}): StatusComponentInput {
  return {
    id,
    name: id.replace(/^provider-/, ""),
    description: null,
    createdAt: NOW - 200 * DAY,
    health: { requests: 1000, ok: 1000, latencyP95Ms: 800, baselineP95Ms: 700 },
    last24h: { requests: 24_000, ok: 23_990 },
    // 90 days of traffic: one bad day ten days ago.
    daily: lastDays(NOW, 90).map((day, i) => ({ day, requests: 10_000, ok: i === 79 ? 9_000 : 9_999 })),
    ...over,
  };
}

export function incident(id: string, over: Partial<StatusIncidentInput> = {}): StatusIncidentInput {
  return {
    id,
    name: `Elevated error rate on ${id}`,
    status: "investigating",
    impact: "minor",
    createdAt: NOW - 2 * HOUR,
    updatedAt: NOW - HOUR,
    monitoringAt: null,
    resolvedAt: null,
    componentIds: ["api"],
    updates: [{ id: `${id}-u1`, status: "investigating", body: "Error rate above 5% for 5 minutes.", createdAt: NOW - 2 * HOUR }],
    ...over,
  };
}

export function sampleInput(): StatusInput {
  const providers = ["openai", "anthropic", "google", "mistral", "groq"].map((p) => component(`provider-${p}`));
  return {
    page: { id: "gw", name: "gw", url: "https://gw.example.com/status", timeZone: "Etc/UTC" },
    components: [component("api", { name: "API" }), component("routing", { name: "Routing" }), component("cache", { name: "Cache" }), ...providers],
    incidents: [],
    maintenances: [],
  };
}
