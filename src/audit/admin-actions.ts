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
  "POST /projects/:id/webhooks": "webhook.create",
  "PATCH /webhooks/:webhook_id": "webhook.update",
  "DELETE /webhooks/:webhook_id": "webhook.delete",
  "POST /webhooks/:webhook_id/rotate-secret": "webhook.rotate_secret",
  "POST /webhooks/:webhook_id/test": "webhook.test",
  "POST /webhook-deliveries/:delivery_id/replay": "webhook.replay",
  "POST /projects/:id/alert-rules": "alert_rule.create",
  "PATCH /alert-rules/:rule_id": "alert_rule.update",
  "DELETE /alert-rules/:rule_id": "alert_rule.delete",
  "POST /status/incidents": "status_post.create",
  "POST /status/maintenances": "status_post.create",
  "PATCH /status/posts/:post_id": "status_post.update",
  "POST /status/posts/:post_id/updates": "status_post.update",
  "DELETE /status/posts/:post_id": "status_post.delete",
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
    case "webhook.create": case "webhook.update": case "webhook.delete": case "webhook.rotate_secret":
    case "webhook.test": case "webhook.replay": case "alert_rule.create": case "alert_rule.update":
    case "alert_rule.delete": case "status_post.create": case "status_post.update": case "status_post.delete": {
      // The object acted on: its id from the path, or the one the answer created.
      const p = call.params;
      return { ...base, target: p.webhook_id ?? p.delivery_id ?? p.rule_id ?? p.post_id ?? str(field(call.response, "id")), details: {} };
    }
    default:
      return { ...base, target: call.route, details: {} };
  }
}
