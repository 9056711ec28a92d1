// statusSummary: Statuspage v2 summary.json shape (validated by ajv against the fixture schema),
// health-to-status thresholds, page indicator, incidents, maintenance windows and gw's uptime.
import { describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import schema from "../../fixtures/statuspage-v2-summary.schema.json";
import { HEALTH } from "../../../src/monitoring/status/health.ts";
import { statusSummary, type MaintenanceInput } from "../../../src/monitoring/status/summary.ts";
import { component, DAY, HOUR, incident, NOW, sampleInput } from "./sample-input.ts";

const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addFormat("date-time", /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
ajv.addFormat("date", /^\d{4}-\d{2}-\d{2}$/);
ajv.addFormat("uri", /^https?:\/\/\S+$/);
const validate = ajv.compile(schema);

function maintenance(id: string, from: number, until: number, over: Partial<MaintenanceInput> = {}): MaintenanceInput {
  return {
    id, name: `Database upgrade ${id}`, createdAt: NOW - 3 * DAY, updatedAt: NOW - 3 * DAY,
    componentIds: ["cache"], updates: [], scheduledFor: from, scheduledUntil: until, completedAt: null, ...over,
  };
}

function statusOf(health: { requests: number; ok: number; latencyP95Ms?: number | null; baselineP95Ms?: number | null }) {
  const input = sampleInput();
  input.components = [component("api", { health: { latencyP95Ms: 500, baselineP95Ms: 500, ...health } })];
  return statusSummary(input, NOW);
}

describe("status.json is a Statuspage v2 summary (issue 18 item 5)", () => {
  test("a full summary with incidents and maintenances validates against the schema", () => {
    const input = sampleInput();
    input.incidents = [incident("inc_1"), incident("inc_2", { status: "resolved", resolvedAt: NOW - DAY })];
    input.maintenances = [maintenance("mnt_1", NOW - HOUR, NOW + HOUR), maintenance("mnt_2", NOW + DAY, NOW + DAY + HOUR)];
    const summary = statusSummary(input, NOW);
    const ok = validate(JSON.parse(JSON.stringify(summary)));
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
    expect(Object.keys(summary)).toEqual(["page", "status", "components", "incidents", "scheduled_maintenances", "gw"]);
  });

  test("the schema rejects what a widget could not read", () => {
    const summary = JSON.parse(JSON.stringify(statusSummary(sampleInput(), NOW)));
    summary.components[0].status = "down";
    expect(validate(summary)).toBe(false);
    delete summary.components[0].status;
    summary.status.indicator = "red";
    expect(validate(summary)).toBe(false);
  });

  test("page and components carry Statuspage's fields, times from the injected clock", () => {
    const summary = statusSummary(sampleInput(), NOW);
    expect(summary.page).toEqual({ id: "gw", name: "gw", url: "https://gw.example.com/status", time_zone: "Etc/UTC", updated_at: "2026-11-26T12:00:00.000Z" });
    expect(summary.status).toEqual({ indicator: "none", description: "All Systems Operational" });
    expect(summary.components.map((c) => c.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(summary.components.map((c) => c.name).slice(0, 4)).toEqual(["API", "Routing", "Cache", "openai"]);
    expect(summary.components[0]).toMatchObject({
      id: "api", status: "operational", page_id: "gw", group: false, group_id: null, showcase: true,
      only_show_if_degraded: false, start_date: "2026-05-10", updated_at: "2026-11-26T12:00:00.000Z",
    });
  });
});

describe("health to component status (docs/monitoring.md Status page)", () => {
  test("availability thresholds", () => {
    expect(statusOf({ requests: 1000, ok: 990 }).components[0]!.status).toBe("operational");
    expect(statusOf({ requests: 1000, ok: 989 }).components[0]!.status).toBe("degraded_performance");
    expect(statusOf({ requests: 1000, ok: 950 }).components[0]!.status).toBe("degraded_performance");
    expect(statusOf({ requests: 1000, ok: 949 }).components[0]!.status).toBe("partial_outage");
    expect(statusOf({ requests: 1000, ok: 500 }).components[0]!.status).toBe("partial_outage");
    expect(statusOf({ requests: 1000, ok: 499 }).components[0]!.status).toBe("major_outage");
  });

  test("too few requests say nothing: operational even if all failed", () => {
    expect(statusOf({ requests: HEALTH.minRequests - 1, ok: 0 }).components[0]!.status).toBe("operational");
    expect(statusOf({ requests: HEALTH.minRequests, ok: 0 }).components[0]!.status).toBe("major_outage");
    expect(statusOf({ requests: 0, ok: 0 }).components[0]!.status).toBe("operational");
  });

  test("p95 above twice the component's own baseline is degraded performance; no baseline, no judgement", () => {
    expect(statusOf({ requests: 100, ok: 100, latencyP95Ms: 1000, baselineP95Ms: 500 }).components[0]!.status).toBe("operational");
    expect(statusOf({ requests: 100, ok: 100, latencyP95Ms: 1001, baselineP95Ms: 500 }).components[0]!.status).toBe("degraded_performance");
    expect(statusOf({ requests: 100, ok: 100, latencyP95Ms: 9000, baselineP95Ms: null }).components[0]!.status).toBe("operational");
    expect(statusOf({ requests: 100, ok: 40, latencyP95Ms: 9000, baselineP95Ms: 500 }).components[0]!.status).toBe("major_outage");
  });

  test("the page indicator is the worst component's", () => {
    const input = sampleInput();
    input.components[1] = component("routing", { health: { requests: 100, ok: 97, latencyP95Ms: 1, baselineP95Ms: 1 } });
    expect(statusSummary(input, NOW).status).toEqual({ indicator: "minor", description: "Minor Service Outage" });
    input.components[4] = component("provider-anthropic", { health: { requests: 100, ok: 60, latencyP95Ms: 1, baselineP95Ms: 1 } });
    expect(statusSummary(input, NOW).status).toEqual({ indicator: "major", description: "Partial System Outage" });
    input.components[6] = component("provider-mistral", { health: { requests: 100, ok: 10, latencyP95Ms: 1, baselineP95Ms: 1 } });
    expect(statusSummary(input, NOW).status).toEqual({ indicator: "critical", description: "Major System Outage" });
  });

  test("an unresolved incident's impact raises the indicator; a resolved one does not", () => {
    const input = sampleInput();
    input.incidents = [incident("inc_old", { impact: "critical", status: "resolved", resolvedAt: NOW - HOUR })];
    expect(statusSummary(input, NOW).status.indicator).toBe("none");
    input.incidents.push(incident("inc_new", { impact: "major" }));
    expect(statusSummary(input, NOW).status.indicator).toBe("major");
  });
});

describe("incidents and maintenance windows", () => {
  test("open incidents in incidents[], resolved within 7 days in gw.recent_incidents, older ones nowhere", () => {
    const input = sampleInput();
    input.incidents = [
      incident("inc_open", { componentIds: ["api", "provider-openai", "unknown"] }),
      incident("inc_recent", { status: "resolved", resolvedAt: NOW - 6 * DAY }),
      incident("inc_old", { status: "postmortem", resolvedAt: NOW - 8 * DAY }),
    ];
    const s = statusSummary(input, NOW);
    expect(s.incidents.map((x) => x.id)).toEqual(["inc_open"]);
    expect(s.gw.recent_incidents.map((x) => x.id)).toEqual(["inc_recent"]);
    const open = s.incidents[0]!;
    expect(open.components.map((c) => c.id)).toEqual(["api", "provider-openai"]);
    expect(open).toMatchObject({ status: "investigating", impact: "minor", resolved_at: null, shortlink: "https://gw.example.com/status#inc_open" });
    expect(open.incident_updates[0]).toMatchObject({ incident_id: "inc_open", status: "investigating", body: "Error rate above 5% for 5 minutes." });
  });

  test("a window in progress puts its components under maintenance; upcoming ones are listed, finished ones not", () => {
    const input = sampleInput();
    input.maintenances = [
      maintenance("mnt_later", NOW + DAY, NOW + DAY + HOUR),
      maintenance("mnt_now", NOW - HOUR, NOW + HOUR),
      maintenance("mnt_done", NOW - 3 * HOUR, NOW - 2 * HOUR),
      maintenance("mnt_closed", NOW - HOUR, NOW + HOUR, { completedAt: NOW - 1, componentIds: ["api"] }),
    ];
    const s = statusSummary(input, NOW);
    expect(s.scheduled_maintenances.map((m) => [m.id, m.status])).toEqual([["mnt_now", "in_progress"], ["mnt_later", "scheduled"]]);
    expect(s.components.find((c) => c.id === "cache")!.status).toBe("under_maintenance");
    expect(s.components.find((c) => c.id === "api")!.status).toBe("operational");
    expect(s.status).toEqual({ indicator: "none", description: "Service Under Maintenance" });
    expect(s.scheduled_maintenances[0]).toMatchObject({ impact: "maintenance", scheduled_for: "2026-11-26T11:00:00.000Z", scheduled_until: "2026-11-26T13:00:00.000Z" });
    const after = statusSummary(input, NOW + 2 * HOUR);
    expect(after.components.find((c) => c.id === "cache")!.status).toBe("operational");
  });
});

describe("gw additions: uptime and p95 per component", () => {
  test("24h from its rolling counts, 7d/30d/90d request-weighted over UTC days", () => {
    const s = statusSummary(sampleInput(), NOW);
    const api = s.gw.components[0]!;
    expect(api.id).toBe("api");
    expect(api.latency_p95_ms).toBe(800);
    expect(api.uptime["24h"]).toBeCloseTo(23_990 / 24_000, 10);
    expect(api.uptime["7d"]).toBeCloseTo(0.9999, 10);
    expect(api.uptime["30d"]).toBeCloseTo((29 * 9_999 + 9_000) / 300_000, 10);
    expect(api.uptime["90d"]).toBeCloseTo((89 * 9_999 + 9_000) / 900_000, 10);
  });

  test("no traffic is no uptime (null), not 100%", () => {
    const input = sampleInput();
    input.components = [component("cache", { last24h: { requests: 0, ok: 0 }, daily: [], health: { requests: 0, ok: 0, latencyP95Ms: null, baselineP95Ms: null } })];
    const s = statusSummary(input, NOW);
    expect(s.gw.components[0]!.uptime).toEqual({ "24h": null, "7d": null, "30d": null, "90d": null });
    expect(s.gw.components[0]!.latency_p95_ms).toBeNull();
  });
});
