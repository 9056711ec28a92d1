// The OpenAPI 3.1 document (docs/api.md "OpenAPI"), made from the app's own route list: each route
// under /v1 (and the probes) is described by its entry in the operations tables; a route without
// one is reported by `undocumentedRoutes`, which a test keeps empty.
import { API_BASE_PATH, API_VERSION } from "../../config/constants.ts";
import { ERROR_CODES } from "../../errors/codes.ts";
import { ALWAYS, ANSWER_HEADERS, HEADERS, PARAMETERS, PIPELINE_PARAMETERS, SCHEMAS, SECURITY_SCHEMES, schemaRef, type HeaderName } from "./components.ts";
import { ADMIN_OPERATIONS } from "./operations-admin.ts";
import { API_OPERATIONS } from "./operations-api.ts";
import type { Operation } from "./types.ts";

export interface RouteRef {
  method: string;
  path: string;
}

const OPERATIONS: Readonly<Record<string, Operation>> = { ...API_OPERATIONS, ...ADMIN_OPERATIONS };
const keyOf = (r: RouteRef) => `${r.method} ${r.path}`;

/** The API and the probes; the dashboard's pages, assets and cookie-signed /dashboard/api are the
 * dashboard's own (docs/dashboard.md). */
const isDocumented = (r: RouteRef) => r.path.startsWith(`${API_BASE_PATH}/`) || OPERATIONS[keyOf(r)] !== undefined;

/** Routes the document should describe but has no entry for. */
export function undocumentedRoutes(routes: readonly RouteRef[]): string[] {
  return routes.filter((r) => isDocumented(r) && OPERATIONS[keyOf(r)] === undefined).map(keyOf);
}

/** `/v1/models/*` -> `/models/{model}`, `:id` -> `{id}`; paths outside /v1 keep their root. */
function openApiPath(path: string): { path: string; root: boolean } {
  const root = !path.startsWith(`${API_BASE_PATH}/`);
  const relative = (root ? path : path.slice(API_BASE_PATH.length)).replace(/\/\*$/, "/{model}").replace(/:([A-Za-z_]+)/g, "{$1}");
  return { path: relative, root };
}

const headerRefs = (names: readonly HeaderName[]) => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));
const json = (schema: object) => ({ "application/json": { schema } });

const STATUS_TEXT: Record<number, string> = {
  400: "Invalid request", 401: "Missing, unknown or revoked key", 402: "Budget, credits or plan limit", 403: "The key lacks the scope",
  404: "Not found", 409: "Conflict", 413: "Body over the limit", 422: "Invalid input", 429: "Rate limited", 500: "Internal error",
  502: "Upstream error", 503: "Unavailable", 504: "Timeout",
};

/** gw's envelope errors, one shared response per status (the codes of src/errors/codes.ts). */
function errorResponse(status: number, schema: object = schemaRef("ErrorEnvelope")) {
  const codes = Object.entries(ERROR_CODES).filter(([, c]) => c.status === status).map(([code]) => code);
  const headers: HeaderName[] = status === 429 || status === 503 ? [...ALWAYS, "Retry-After"] : [...ALWAYS];
  return { description: `${STATUS_TEXT[status] ?? "Error"}${codes.length ? ` (${codes.join(", ")})` : ""}`, headers: headerRefs(headers), content: json(schema) };
}

function errorStatuses(op: Operation, hasPathParams: boolean): number[] {
  const out = new Set<number>(op.errors ?? []);
  if (op.auth !== "none") out.add(401);
  if (op.auth !== "none" && op.auth !== "admin") out.add(403);
  if (op.body) [400, 413].forEach((s) => out.add(s));
  if (op.fieldErrors) out.add(422);
  if (op.query) out.add(400);
  if (hasPathParams) out.add(404);
  if (op.pipeline) [400, 402, 404, 409, 413, 422, 429, 502, 503, 504].forEach((s) => out.add(s));
  if (op.auth !== "none") out.add(500);
  return [...out].sort((a, b) => a - b);
}

function security(op: Operation): Array<Record<string, string[]>> {
  if (op.auth === "none") return [];
  if (op.auth === "admin") return [{ adminToken: [] }];
  if (op.auth === "messages") return [{ apiKey: ["chat"] }, { anthropicApiKey: ["chat"] }];
  return [{ apiKey: [op.auth] }];
}

function operationObject(route: RouteRef, op: Operation, path: string) {
  const pathParams = [...path.matchAll(/\{([A-Za-z_]+)\}/g)].map(([, name]) => ({
    name, in: "path", required: true,
    description: name === "model" ? "A model or profile id; its slashes as they are or encoded (%2F)." : undefined,
    schema: { type: "string" },
  }));
  const query = (op.query ?? []).map((q) => ({ name: q.name, in: "query", required: false, description: q.description, schema: q.schema }));
  const content: Record<string, { schema: object }> = { [op.ok.contentType ?? "application/json"]: { schema: op.ok.schema ?? {} } };
  if (op.ok.stream) content["text/event-stream"] = { schema: { type: "string", description: op.ok.stream } };
  const responses: Record<string, object> = {
    [String(op.ok.status)]: { description: op.ok.description, headers: headerRefs(op.pipeline ? ANSWER_HEADERS : ALWAYS), content },
  };
  for (const other of op.other ?? []) responses[String(other.status)] = { description: other.description, headers: headerRefs(ALWAYS), content: json(other.schema) };
  for (const status of errorStatuses(op, pathParams.length > 0)) {
    if (responses[String(status)]) continue;
    responses[String(status)] = op.errorSchema ? errorResponse(status, op.errorSchema)
      : status === 422 && op.fieldErrors ? errorResponse(422, schemaRef("FieldErrors"))
      : { $ref: `#/components/responses/Error${status}` };
  }
  return {
    operationId: `${route.method}${path}`.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/_+$/, ""),
    summary: op.summary,
    description: `See ${op.docs}.`,
    tags: [op.tag],
    security: security(op),
    parameters: [...pathParams, ...query, ...(op.pipeline ? PIPELINE_PARAMETERS : [])],
    ...(op.body ? { requestBody: { required: true, content: json(op.body) } } : {}),
    responses,
  };
}

/** The document for these routes (the app's, in its order). */
export function openApiDocument(routes: readonly RouteRef[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const op = OPERATIONS[keyOf(route)];
    if (!op) continue;
    const { path, root } = openApiPath(route.path);
    const item = (paths[path] ??= root ? { servers: [{ url: "/" }] } : {});
    item[route.method.toLowerCase()] = operationObject(route, op, path);
  }
  const statuses = Object.keys(STATUS_TEXT).map(Number);
  return {
    openapi: "3.1.0",
    info: {
      title: "gw",
      version: API_VERSION,
      description: "A self-hosted, model-routing LLM gateway with an OpenAI-compatible API. Every answer carries X-Gw-Api-Version and X-Gw-Request-Id; errors use one envelope.",
    },
    servers: [{ url: API_BASE_PATH }],
    tags: [...new Set(Object.values(OPERATIONS).map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: SCHEMAS,
      parameters: PARAMETERS,
      headers: HEADERS,
      securitySchemes: SECURITY_SCHEMES,
      responses: Object.fromEntries(statuses.map((s) => [`Error${s}`, errorResponse(s)])),
    },
  };
}
