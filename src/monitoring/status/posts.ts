// The operator's status posts (docs/monitoring.md "Status posts"): request bodies checked with
// 400s naming the field, and the StatusPostView the admin API answers with.
import { Type } from "@sinclair/typebox";
import { invalidRequest } from "../../errors/gw-error.ts";
import { compileValidator } from "../../schema/validate.ts";
import type { StatusPostRow, StatusUpdateRow } from "../../store/repos/status-posts.ts";

const lit = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));

export const INCIDENT_STATUSES = ["investigating", "identified", "monitoring", "resolved"] as const;
export const MAINTENANCE_STATUSES = ["scheduled", "in_progress", "verifying", "completed"] as const;
export const IMPACTS = ["none", "minor", "major", "critical"] as const;

const name = Type.String({ minLength: 1, maxLength: 200 });
const body = Type.String({ minLength: 1, maxLength: 5000 });
const components = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 });
const when = Type.String({ minLength: 1, maxLength: 40 });

const checkIncident = compileValidator(Type.Object({
  name, status: Type.Optional(lit(INCIDENT_STATUSES)), impact: Type.Optional(lit(IMPACTS)), components: Type.Optional(components), body,
}, { additionalProperties: false }));
const checkMaintenance = compileValidator(Type.Object({
  name, components: Type.Optional(components), scheduled_for: when, scheduled_until: when, body,
}, { additionalProperties: false }));
const checkIncidentPatch = compileValidator(Type.Object({
  name: Type.Optional(name), status: Type.Optional(lit(INCIDENT_STATUSES)), impact: Type.Optional(lit(IMPACTS)), components: Type.Optional(components),
}, { additionalProperties: false, minProperties: 1 }));
const checkMaintenancePatch = compileValidator(Type.Object({
  name: Type.Optional(name), status: Type.Optional(lit(MAINTENANCE_STATUSES)), components: Type.Optional(components),
  scheduled_for: Type.Optional(when), scheduled_until: Type.Optional(when),
}, { additionalProperties: false, minProperties: 1 }));
const checkIncidentUpdate = compileValidator(Type.Object({ status: Type.Optional(lit(INCIDENT_STATUSES)), body }, { additionalProperties: false }));
const checkMaintenanceUpdate = compileValidator(Type.Object({ status: Type.Optional(lit(MAINTENANCE_STATUSES)), body }, { additionalProperties: false }));

/** An ISO 8601 date-time with its offset -> ms; 400 naming `field` otherwise. */
function isoMs(text: string, field: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms)) throw invalidRequest(`Invalid value for '${field}': expected an ISO 8601 date-time with offset, e.g. "2026-11-26T22:00:00Z".`, field);
  return ms;
}

function checkComponents(ids: string[] | undefined, known: readonly string[]): string[] | undefined {
  if (ids === undefined) return undefined;
  ids.forEach((id, i) => {
    if (!known.includes(id)) throw invalidRequest(`Invalid value for 'components[${i}]': unknown component ${JSON.stringify(id)}; known: ${known.join(", ")}.`, `components[${i}]`);
  });
  return [...new Set(ids)];
}

function checkWindow(from: number, until: number): void {
  if (until <= from) throw invalidRequest("Invalid value for 'scheduled_until': it must be after 'scheduled_for'.", "scheduled_until");
}

export interface NewPost { post: Omit<StatusPostRow, "id" | "createdAt" | "updatedAt">; body: string }

export function parseIncident(input: unknown, known: readonly string[]): NewPost {
  const b = checkIncident(input);
  const status = b.status ?? "investigating";
  return {
    post: { kind: "incident", name: b.name, status, impact: b.impact ?? "minor", components: checkComponents(b.components, known) ?? [],
      scheduledFor: null, scheduledUntil: null, monitoringAt: null, resolvedAt: null },
    body: b.body,
  };
}

export function parseMaintenance(input: unknown, known: readonly string[]): NewPost {
  const b = checkMaintenance(input);
  const from = isoMs(b.scheduled_for, "scheduled_for");
  const until = isoMs(b.scheduled_until, "scheduled_until");
  checkWindow(from, until);
  return {
    post: { kind: "maintenance", name: b.name, status: "scheduled", impact: "maintenance", components: checkComponents(b.components, known) ?? [],
      scheduledFor: from, scheduledUntil: until, monitoringAt: null, resolvedAt: null },
    body: b.body,
  };
}

/** A status change's timestamps: monitoring and resolution (completion) are recorded once. */
function withStatus(p: StatusPostRow, status: string | undefined, now: number): StatusPostRow {
  if (status === undefined || status === p.status) return p;
  const done = status === "resolved" || status === "completed";
  return {
    ...p, status,
    monitoringAt: status === "monitoring" ? (p.monitoringAt ?? now) : p.monitoringAt,
    resolvedAt: done ? (p.resolvedAt ?? now) : null,
  };
}

export function patchPost(p: StatusPostRow, input: unknown, known: readonly string[], now: number): StatusPostRow {
  if (p.kind === "incident") {
    const b = checkIncidentPatch(input);
    const next = { ...p, name: b.name ?? p.name, impact: b.impact ?? p.impact, components: checkComponents(b.components, known) ?? p.components };
    return { ...withStatus(next, b.status, now), updatedAt: now };
  }
  const b = checkMaintenancePatch(input);
  const from = b.scheduled_for === undefined ? p.scheduledFor! : isoMs(b.scheduled_for, "scheduled_for");
  const until = b.scheduled_until === undefined ? p.scheduledUntil! : isoMs(b.scheduled_until, "scheduled_until");
  checkWindow(from, until);
  const next = { ...p, name: b.name ?? p.name, components: checkComponents(b.components, known) ?? p.components, scheduledFor: from, scheduledUntil: until };
  return { ...withStatus(next, b.status, now), updatedAt: now };
}

/** An update's body applied: the post takes the update's status (or keeps its own). */
export function parseUpdate(p: StatusPostRow, input: unknown, now: number): { post: StatusPostRow; status: string; body: string } {
  const b = p.kind === "incident" ? checkIncidentUpdate(input) : checkMaintenanceUpdate(input);
  const post = { ...withStatus(p, b.status, now), updatedAt: now };
  return { post, status: b.status ?? (p.kind === "incident" ? p.status : currentMaintenanceStatus(p, now)), body: b.body };
}

/** A window's status now: its times decide (as summary.ts maintenanceStatus), except that the
 * operator may complete it early or mark it verifying while it runs. */
export function currentMaintenanceStatus(p: StatusPostRow, now: number): string {
  if (p.resolvedAt !== null && p.resolvedAt <= now) return "completed";
  if (now < (p.scheduledFor ?? 0)) return "scheduled";
  if (now >= (p.scheduledUntil ?? 0)) return "completed";
  return p.status === "verifying" ? "verifying" : "in_progress";
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function postView(p: StatusPostRow, updates: StatusUpdateRow[], now: number) {
  return {
    object: p.kind === "incident" ? "status_incident" as const : "status_maintenance" as const,
    id: p.id,
    name: p.name,
    status: p.kind === "incident" ? p.status : currentMaintenanceStatus(p, now),
    impact: p.impact,
    components: p.components,
    scheduled_for: iso(p.scheduledFor),
    scheduled_until: iso(p.scheduledUntil),
    created_at: iso(p.createdAt)!,
    updated_at: iso(p.updatedAt)!,
    resolved_at: iso(p.resolvedAt),
    updates: updates.map((u) => ({ id: u.id, status: u.status, body: u.body, created_at: iso(u.createdAt)! })),
  };
}

export type StatusPostView = ReturnType<typeof postView>;
