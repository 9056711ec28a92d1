// What the audit log records for each admin API call (docs/dashboard.md "Audit log"): the action
// by route, the project and target from the path or the answer, and details that are ids and
// field names only (the policy keys a call changed, never their values, never a secret).
import type { AuditAction } from "./audit-log.ts";

export interface AdminCall {
  method: string;
  /** The route as registered, after the admin prefix: `/projects/:id/keys`. */
  route: string;
  params: Record<string, string | undefined>;
  /** The JSON body's object, when the call had one. */
  body: Record<string, unknown> | null;
  /** The handler's answer (success only). */
  response: unknown;
}

export interface AdminAudit {
  action: AuditAction;
  projectId: string | null;
  target: string | null;
  details: Record<string, unknown>;
}

const ACTIONS: Record<string, AuditAction> = {
  "POST /projects": "project.create",
  "PATCH /projects/:id": "project.update",
  "POST /projects/:id/keys": "key.create",
  "DELETE /keys/:key_id": "key.revoke",
  "PUT /projects/:id/provider-keys/:provider": "provider_key.put",
  "DELETE /projects/:id/provider-keys/:provider": "provider_key.delete",
  "POST /projects/:id/credits": "credits.add",
  "PUT /projects/:id/sso": "sso.configure",
  "DELETE /projects/:id/sso": "sso.configure",
};

const field = (value: unknown, name: string): unknown =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>)[name] : undefined;
const str = (value: unknown): string | null => (typeof value === "string" ? value : null);
const keysOf = (value: unknown): string[] => (typeof value === "object" && value !== null && !Array.isArray(value) ? Object.keys(value) : []);

/** The action, project, target and details of one admin call; `admin.read` for any GET. */
export function adminAuditOf(call: AdminCall): AdminAudit {
  const action: AuditAction = call.method === "GET" ? "admin.read" : (ACTIONS[`${call.method} ${call.route}`] ?? "admin.write");
  const projectId = call.params.id ?? (action === "project.create" ? str(field(call.response, "id")) : null);
  const base = { action, projectId };
  switch (action) {
    case "project.create":
    case "project.update":
      return { ...base, target: projectId, details: { fields: keysOf(call.body), policy_keys: keysOf(field(call.body, "policy")) } };
    case "key.create":
      return { ...base, target: str(field(call.response, "id")), details: { scopes: field(call.response, "scopes") ?? null, mode: field(call.response, "mode") ?? null } };
    case "key.revoke":
      return { ...base, target: call.params.key_id ?? null, details: {} };
    case "provider_key.put":
    case "provider_key.delete":
      return { ...base, target: call.params.provider ?? null, details: { provider: call.params.provider ?? null } };
    case "credits.add":
      return { ...base, target: projectId, details: { amount: typeof field(call.body, "amount") === "number" ? field(call.body, "amount") : null } };
    case "sso.configure":
      return call.method === "DELETE"
        ? { ...base, target: projectId, details: { removed: true } }
        : { ...base, target: projectId, details: { issuer: str(field(call.body, "issuer")), allowed_domains: field(call.body, "allowed_domains") ?? null } };
    default:
      return { ...base, target: call.route, details: {} };
  }
}
