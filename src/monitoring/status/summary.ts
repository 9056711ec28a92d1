// The public status JSON: Atlassian Statuspage v2's summary document field for field, plus gw's uptime
// and p95 latency under `gw` (docs/monitoring.md "Status page"). Pure: counts and clock are passed in.
import { componentStatus, pageStatus, type Indicator, type RecentHealth } from "./health.ts";
import { dayBars, uptimeOf, utcDay, type Counts, type DayBar, type DayCount } from "./uptime.ts";

export type IncidentStatus = "investigating" | "identified" | "monitoring" | "resolved" | "postmortem";
export type MaintenanceStatus = "scheduled" | "in_progress" | "verifying" | "completed";

export interface StatusComponentInput {
  /** Stable public id (e.g. "api", "provider-openai"); never a project's. */
  id: string;
  name: string;
  description: string | null;
  createdAt: number;
  /** When the status last changed; the caller's record, else the status is reported as of now. */
  updatedAt?: number;
  health: RecentHealth;
  last24h: Counts;
  daily: DayCount[];
}

export interface StatusUpdateInput {
  id: string;
  status: IncidentStatus | MaintenanceStatus;
  body: string;
  createdAt: number;
}

export interface StatusIncidentInput {
  id: string;
  name: string;
  status: IncidentStatus;
  impact: Indicator;
  createdAt: number;
  updatedAt: number;
  monitoringAt: number | null;
  resolvedAt: number | null;
  componentIds: string[];
  /** Newest first, as Statuspage lists them. */
  updates: StatusUpdateInput[];
}

export interface MaintenanceInput extends Omit<StatusIncidentInput, "status" | "impact" | "monitoringAt" | "resolvedAt"> {
  scheduledFor: number;
  scheduledUntil: number;
  /** Set once the operator closes it early; otherwise the window's end completes it. */
  completedAt: number | null;
}

export interface StatusInput {
  page: { id: string; name: string; url: string; timeZone: string };
  components: StatusComponentInput[];
  /** Unresolved incidents and those resolved within `recentMs`; older ones are ignored. */
  incidents: StatusIncidentInput[];
  maintenances: MaintenanceInput[];
}

/** Resolved incidents younger than this are listed as recent (gw.recent_incidents and the HTML page). */
export const RECENT_MS = 7 * 86_400_000;

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

export function maintenanceStatus(m: MaintenanceInput, now: number): MaintenanceStatus {
  if (m.completedAt !== null && m.completedAt <= now) return "completed";
  if (now < m.scheduledFor) return "scheduled";
  return now < m.scheduledUntil ? "in_progress" : "completed";
}

export function statusSummary(input: StatusInput, now: number) {
  const pageId = input.page.id;
  const active = input.maintenances.filter((m) => maintenanceStatus(m, now) !== "completed");
  const inMaintenance = new Set(active.filter((m) => maintenanceStatus(m, now) === "in_progress").flatMap((m) => m.componentIds));
  const components = input.components.map((c, i) => ({
    id: c.id,
    name: c.name,
    status: componentStatus(c.health, inMaintenance.has(c.id)),
    created_at: iso(c.createdAt),
    updated_at: iso(c.updatedAt ?? now),
    position: i + 1,
    description: c.description,
    showcase: true,
    start_date: utcDay(c.createdAt),
    group_id: null,
    page_id: pageId,
    group: false,
    only_show_if_degraded: false,
  }));
  const byId = new Map(components.map((c) => [c.id, c]));
  const affected = (ids: string[]) => ids.flatMap((id) => byId.get(id) ?? []);
  const updates = (incidentId: string, list: StatusUpdateInput[]) => list.map((u) => ({
    id: u.id,
    status: u.status,
    body: u.body,
    incident_id: incidentId,
    created_at: iso(u.createdAt),
    updated_at: iso(u.createdAt),
    display_at: iso(u.createdAt),
  }));
  const incident = (x: StatusIncidentInput) => ({
    id: x.id,
    name: x.name,
    status: x.status,
    created_at: iso(x.createdAt),
    updated_at: iso(x.updatedAt),
    monitoring_at: isoOrNull(x.monitoringAt),
    resolved_at: isoOrNull(x.resolvedAt),
    impact: x.impact,
    shortlink: `${input.page.url}#${x.id}`,
    started_at: iso(x.createdAt),
    page_id: pageId,
    incident_updates: updates(x.id, x.updates),
    components: affected(x.componentIds),
  });
  const isOpen = (x: StatusIncidentInput) => x.resolvedAt === null && x.status !== "resolved" && x.status !== "postmortem";
  const open = input.incidents.filter(isOpen);
  const recent = input.incidents
    .filter((x) => !isOpen(x) && x.resolvedAt !== null && now - x.resolvedAt <= RECENT_MS)
    .sort((a, b) => (b.resolvedAt ?? 0) - (a.resolvedAt ?? 0));
  const gwComponents = input.components.map((c) => ({
    id: c.id,
    uptime: uptimeOf(c.last24h, c.daily, now),
    latency_p95_ms: c.health.latencyP95Ms,
    requests: c.health.requests,
  }));
  return {
    page: { id: pageId, name: input.page.name, url: input.page.url, time_zone: input.page.timeZone, updated_at: iso(now) },
    status: pageStatus(components.map((c) => c.status), open.map((x) => x.impact)),
    components,
    incidents: open.sort((a, b) => b.createdAt - a.createdAt).map(incident),
    scheduled_maintenances: active.sort((a, b) => a.scheduledFor - b.scheduledFor).map((m) => ({
      id: m.id,
      name: m.name,
      status: maintenanceStatus(m, now),
      created_at: iso(m.createdAt),
      updated_at: iso(m.updatedAt),
      monitoring_at: null,
      resolved_at: null,
      impact: "maintenance" as const,
      shortlink: `${input.page.url}#${m.id}`,
      started_at: iso(m.scheduledFor),
      page_id: pageId,
      incident_updates: updates(m.id, m.updates),
      components: affected(m.componentIds),
      scheduled_for: iso(m.scheduledFor),
      scheduled_until: iso(m.scheduledUntil),
    })),
    gw: { components: gwComponents, recent_incidents: recent.map(incident) },
  };
}

export type StatusSummary = ReturnType<typeof statusSummary>;

/** The 90 daily bars per component id, for the HTML page (kept out of the JSON to keep it small). */
export function statusDaily(input: StatusInput, now: number): Record<string, DayBar[]> {
  return Object.fromEntries(input.components.map((c) => [c.id, dayBars(c.daily, now)]));
}
