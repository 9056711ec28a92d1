// The admin API's operations for the OpenAPI document (docs/api.md "Admin API"); they appear only
// when GW_ADMIN_TOKEN is set, as the routes do. Bodies are the schemas that validate them where gw
// has one (src/schema/admin.ts, monitoring/alerts/rule.ts); the others are described by their docs.
import { Type, type TSchema } from "@sinclair/typebox";
import { AlertRuleCreateSchema, AlertRulePatchSchema } from "../../monitoring/alerts/rule.ts";
import { CreateKeyBody, CreateProjectBody, CreditsBody, PolicySchema, ProviderKeyBody, UpdateProjectBody } from "../../schema/admin.ts";
import { listOf } from "./components.ts";
import type { Operation, OperationTable, QueryParam } from "./types.ts";

const Str = Type.String();
const open = { additionalProperties: true } as const;
const AnyObject = Type.Object({}, open);

const Project = Type.Object({
  object: Type.Literal("project"), id: Type.String({ pattern: "^prj_" }), name: Str,
  plan: Type.Union([Type.Literal("free"), Type.Literal("pro"), Type.Literal("business")]),
  billing: Type.Object({
    mode: Type.Union([Type.Literal("prepaid"), Type.Literal("postpaid")]),
    balance: Type.Number(), credit_limit: Type.Union([Type.Number(), Type.Null()]),
  }, open),
  policy: PolicySchema, created_at: Str,
}, open);
const Key = Type.Object({ object: Type.Literal("key"), id: Type.String({ pattern: "^key_" }), scopes: Type.Array(Str), mode: Str, created_at: Str }, open);
const NewKey = Type.Intersect([Key, Type.Object({ key: Type.String({ description: "The secret; shown only in this answer." }) })]);

const page: QueryParam[] = [
  { name: "limit", description: "Page size.", schema: { type: "integer", minimum: 1 } },
  { name: "after", description: "The previous page's cursor.", schema: { type: "string" } },
];

function op(summary: string, docs: string, status: number, schema: TSchema, extra: Partial<Operation> = {}): Operation {
  return { summary, docs, tag: "Admin", auth: "admin", ok: { status, description: summary, schema }, ...extra };
}

const MONITORING = 'docs/monitoring.md "Alert rules"';
const WEBHOOKS = 'docs/webhooks.md "Endpoints"';
const STATUS = 'docs/monitoring.md "Status posts"';
const API = 'docs/api.md "Admin API"';
const loose = (description: string) => Type.Object({}, { ...open, description });

export const ADMIN_OPERATIONS: OperationTable = {
  "POST /v1/admin/projects": op("Create a project", API, 201, Project, { body: CreateProjectBody }),
  "GET /v1/admin/projects": op("List every project", API, 200, listOf(Project)),
  "GET /v1/admin/projects/:id": op("Get a project", API, 200, Project),
  "PATCH /v1/admin/projects/:id": op("Change a project; policy merged key by key, null unsets a key", API, 200, Project, { body: UpdateProjectBody }),
  "GET /v1/admin/projects/:id/keys": op("List a project's keys (never a secret)", API, 200, listOf(Key)),
  "POST /v1/admin/projects/:id/keys": op("Create a key", API, 201, NewKey, { body: CreateKeyBody }),
  "DELETE /v1/admin/keys/:key_id": op("Revoke a key", API, 200, Type.Object({ object: Type.Literal("key"), id: Str, revoked: Type.Literal(true) }, open)),
  "PUT /v1/admin/projects/:id/provider-keys/:provider": op("Set a project's own provider key (stored sealed, never returned)", 'docs/providers.md "Bring your own keys"', 200, AnyObject, { body: ProviderKeyBody }),
  "DELETE /v1/admin/projects/:id/provider-keys/:provider": op("Remove a project's provider key", 'docs/providers.md "Bring your own keys"', 200, AnyObject),
  "POST /v1/admin/projects/:id/credits": op("Add credits (a ledger entry)", 'docs/billing.md "Prepaid credit, postpaid credit limit"', 200, Type.Object({ object: Type.Literal("credits"), balance: Type.Number() }, open), { body: CreditsBody }),
  "GET /v1/admin/projects/:id/invoices": op("Monthly invoices from the ledger", 'docs/billing.md "Invoices"', 200, AnyObject, {
    query: [{ name: "month", description: "`YYYY-MM`.", schema: { type: "string", pattern: "^\\d{4}-\\d{2}$" } }],
  }),
  "PUT /v1/admin/projects/:id/sso": op("Set the project's OpenID Connect client (plan business)", 'docs/api.md "SSO"', 200, AnyObject, {
    body: loose("`{issuer, client_id, client_secret, allowed_domains}` (docs/api.md \"SSO\")"), errors: [409],
  }),
  "GET /v1/admin/projects/:id/sso": op("Get the project's OpenID Connect client (no secret)", 'docs/api.md "SSO"', 200, AnyObject),
  "DELETE /v1/admin/projects/:id/sso": op("Remove the project's OpenID Connect client", 'docs/api.md "SSO"', 200, AnyObject),
  "GET /v1/admin/audit-log": op("Admin calls and dashboard actions, newest first", 'docs/api.md "Audit log"', 200, listOf(AnyObject, { next_cursor: Type.Union([Str, Type.Null()]) }), {
    query: [...page, { name: "project_id", description: "Only this project's entries.", schema: { type: "string" } }],
  }),
  "GET /v1/admin/metrics/prometheus": op("Metrics in Prometheus's text format", 'docs/observability.md "Export"', 200, Str, {
    ok: { status: 200, description: "gw's series in Prometheus's text exposition format.", schema: Str, contentType: "text/plain" },
  }),
  "POST /v1/admin/projects/:id/alert-rules": op("Create an alert rule", MONITORING, 201, AnyObject, { body: AlertRuleCreateSchema }),
  "GET /v1/admin/projects/:id/alert-rules": op("List a project's alert rules", MONITORING, 200, listOf(AnyObject)),
  "PATCH /v1/admin/alert-rules/:rule_id": op("Change an alert rule", MONITORING, 200, AnyObject, { body: AlertRulePatchSchema }),
  "DELETE /v1/admin/alert-rules/:rule_id": op("Delete an alert rule; its open incident is resolved", MONITORING, 200, AnyObject),
  "GET /v1/admin/projects/:id/incidents": op("A project's incidents, newest first", 'docs/monitoring.md "Incidents"', 200, listOf(AnyObject), {
    query: [...page, { name: "status", description: "`open` or `resolved`.", schema: { type: "string" } }],
  }),
  "POST /v1/admin/projects/:id/webhooks": op("Create a webhook endpoint (the secret shown once)", WEBHOOKS, 201, AnyObject, { body: loose("`{url, events, description?}` (docs/webhooks.md \"Endpoints\")") }),
  "GET /v1/admin/projects/:id/webhooks": op("List a project's webhook endpoints", WEBHOOKS, 200, listOf(AnyObject)),
  "PATCH /v1/admin/webhooks/:webhook_id": op("Change a webhook endpoint", WEBHOOKS, 200, AnyObject, { body: loose("Any of `url`, `events`, `description`, `enabled`.") }),
  "DELETE /v1/admin/webhooks/:webhook_id": op("Delete a webhook endpoint", WEBHOOKS, 200, AnyObject),
  "POST /v1/admin/webhooks/:webhook_id/rotate-secret": op("A new signing secret; the old one signs alongside it for 24 h", 'docs/webhooks.md "Verifying a delivery"', 200, AnyObject),
  "POST /v1/admin/webhooks/:webhook_id/test": op("Send test.ping now", WEBHOOKS, 200, AnyObject),
  "GET /v1/admin/webhooks/:webhook_id/deliveries": op("Delivery attempts, newest first", WEBHOOKS, 200, listOf(AnyObject), { query: page }),
  "POST /v1/admin/webhook-deliveries/:delivery_id/replay": op("Send the same event again, signed now", WEBHOOKS, 200, AnyObject),
  "GET /v1/admin/status/posts": op("Status page incidents and maintenance windows, newest first", STATUS, 200, listOf(AnyObject), { query: page }),
  "POST /v1/admin/status/incidents": op("Post an incident", STATUS, 201, AnyObject, { body: loose("`{name, status?, impact?, components?, body}`") }),
  "POST /v1/admin/status/maintenances": op("Post a maintenance window", STATUS, 201, AnyObject, { body: loose("`{name, components?, scheduled_for, scheduled_until, body}`") }),
  "PATCH /v1/admin/status/posts/:post_id": op("Change a status post", STATUS, 200, AnyObject, { body: loose("Any of the post's fields.") }),
  "DELETE /v1/admin/status/posts/:post_id": op("Delete a status post", STATUS, 200, AnyObject),
  "POST /v1/admin/status/posts/:post_id/updates": op("Add an update, which may change the post's status", STATUS, 201, AnyObject, { body: loose("`{status?, body}`") }),
};
