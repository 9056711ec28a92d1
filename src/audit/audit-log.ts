// The audit log (docs/dashboard.md "Audit log"): who did what, when, from where. Written before the
// answer, one row per admin action (SQLite at once; PostgreSQL awaited, multi-instance); never a secret.
import { andThen, type MaybeAsync } from "../auth/maybe-async.ts";
import { invalidRequest } from "../errors/gw-error.ts";
import { sortableId } from "../lib/ids.ts";
import type { Clock } from "../lib/clock.ts";
import type { AuditRow, AuditStore } from "../store/repos/audit-log.ts";

export type ActorType = "admin_token" | "api_key" | "sso" | "operator_session" | "project_session";

export interface AuditActor {
  type: ActorType;
  id: string | null;
  email: string | null;
}

export type AuditAction =
  | "session.sign_in" | "session.sign_in_failed" | "session.sign_out" | "sso.sign_in"
  | "project.create" | "project.update" | "key.create" | "key.revoke" | "credits.add"
  | "provider_key.put" | "provider_key.delete" | "sso.configure"
  | "cache.empty" | "cache.invalidate" | "admin.read"
  | "webhook.create" | "webhook.update" | "webhook.delete" | "webhook.rotate_secret" | "webhook.test" | "webhook.replay"
  | "alert_rule.create" | "alert_rule.update" | "alert_rule.delete"
  | "status_post.create" | "status_post.update" | "status_post.delete"
  /** An admin API write with no action of its own (a route added later). */
  | "admin.write";

export interface AuditInput {
  actor: AuditActor;
  action: AuditAction;
  projectId?: string | null;
  target?: string | null;
  outcome?: "success" | "failure";
  status?: number | null;
  sourceIp?: string | null;
  /** Ids and names only (e.g. the policy keys changed); fields named like secrets are dropped. */
  details?: Record<string, unknown>;
}

export interface AuditFilter {
  projectId?: string;
  after?: string;
  limit?: number;
}

export interface AuditPage {
  data: AuditRow[];
  hasMore: boolean;
  nextCursor: string | null;
}

export const AUDIT_PAGE_MAX = 200;
const AUDIT_PAGE_DEFAULT = 50;
/** Detail fields that could carry a secret are never written, whoever passes them. */
const SECRET_FIELD = /secret|token|password|api_?key|authorization|^key$/i;

export class AuditLog {
  /** `onError` hears a PostgreSQL write that failed (a caller that does not await it never sees it). */
  constructor(private readonly repo: AuditStore, private readonly clock: Clock, private readonly onError: (err: unknown) => void = () => undefined) {}

  /** The row, written; multi-instance: a promise that settles once PostgreSQL holds it (await it
   * before answering; a rejection is a 503 StoreUnavailable). */
  record(input: AuditInput): MaybeAsync<AuditRow> {
    const now = this.clock.now();
    const row: AuditRow = {
      id: `aud_${sortableId(now)}`,
      createdAt: now,
      actorType: input.actor.type,
      actorId: input.actor.id,
      actorEmail: input.actor.email,
      sourceIp: input.sourceIp ?? null,
      action: input.action,
      projectId: input.projectId ?? null,
      target: input.target ?? null,
      outcome: input.outcome ?? "success",
      status: input.status ?? null,
      details: scrub(input.details ?? {}),
    };
    const written = this.repo.insert(row);
    if (!(written instanceof Promise)) return row;
    const done = written.then(() => row);
    done.catch(this.onError);
    return done;
  }

  /** Newest first; `after` is the previous page's `nextCursor`. */
  list(filter: AuditFilter = {}): MaybeAsync<AuditPage> {
    const limit = Math.min(Math.max(1, Math.floor(filter.limit ?? AUDIT_PAGE_DEFAULT)), AUDIT_PAGE_MAX);
    return andThen(this.repo.list({ projectId: filter.projectId, after: filter.after, limit: limit + 1 }), (rows) => {
      const hasMore = rows.length > limit;
      const data = hasMore ? rows.slice(0, limit) : rows;
      return { data, hasMore, nextCursor: hasMore ? (data[data.length - 1]?.id ?? null) : null };
    });
  }

  /** The list as GET /admin/audit-log and the dashboard answer it. */
  listView(filter: AuditFilter = {}): MaybeAsync<ReturnType<typeof auditListView>> {
    return andThen(this.list(filter), auditListView);
  }
}

/** What DATA's mutations and the admin routes call: `recordAudit(deps, {...})`; await it where an
 * answer must follow the write (a promise only in the multi-instance mode). */
export function recordAudit(deps: { audit: AuditLog }, input: AuditInput): MaybeAsync<AuditRow> {
  return deps.audit.record(input);
}

/** The JSON entry of docs/dashboard.md "Audit log". */
export function auditEntryView(r: AuditRow) {
  return {
    object: "audit_entry",
    id: r.id,
    created_at: new Date(r.createdAt).toISOString(),
    actor: { type: r.actorType, id: r.actorId, email: r.actorEmail },
    source_ip: r.sourceIp,
    action: r.action,
    project_id: r.projectId,
    target: r.target,
    outcome: r.outcome,
    status: r.status,
    details: r.details,
  };
}

export function auditListView(page: AuditPage) {
  return { object: "list", data: page.data.map(auditEntryView), has_more: page.hasMore, next_cursor: page.nextCursor };
}

/** `limit` and `after` of an audit list query, checked (the dashboard's and the admin API's). */
export function auditPageQuery(params: URLSearchParams): { limit?: number; after?: string } {
  const rawLimit = params.get("limit");
  let limit: number | undefined;
  if (rawLimit !== null) {
    limit = Number(rawLimit);
    if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_PAGE_MAX) throw invalidRequest(`limit must be an integer from 1 to ${AUDIT_PAGE_MAX}.`, "limit");
  }
  const after = params.get("after");
  if (after !== null && !/^aud_[0-9a-z]{22}$/.test(after)) throw invalidRequest("after must be a next_cursor this endpoint returned.", "after");
  return { limit, after: after ?? undefined };
}

function scrub(details: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(details)) if (!SECRET_FIELD.test(k)) out[k] = v;
  return out;
}
