// GET /v1/openapi.json (docs/api.md "OpenAPI"): a valid OpenAPI 3.1 document (checked by
// @seriousme/openapi-schema-validator) describing every route of the app, with the request schemas
// that validate bodies, and answers gw really gives validate against the schemas it states.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv2020 from "ajv/dist/2020";
import { createApp, type App } from "../../src/http/app.ts";
import { undocumentedRoutes } from "../../src/http/openapi/document.ts";
import { ChatCompletionsBody } from "../../src/schema/chat-completions.ts";
import { EmbeddingsBody } from "../../src/schema/embeddings.ts";
import { CreateProjectBody } from "../../src/schema/admin.ts";
import { ADMIN_TOKEN, startTestGw, type TestGw } from "../helpers/test-gw.ts";

type Json = Record<string, unknown>;

/** The value at a path of keys, or undefined. */
function dig(value: unknown, ...keys: string[]): unknown {
  let at = value;
  for (const key of keys) at = at !== null && typeof at === "object" ? (at as Json)[key] : undefined;
  return at;
}
const keysOf = (value: unknown): string[] => (value !== null && typeof value === "object" ? Object.keys(value) : []);
const pointer = (path: string) => path.replaceAll("~", "~0").replaceAll("/", "~1");

let gw: TestGw;
let app: App;
let doc: Json;
const ajv = new Ajv2020({ strict: false, validateFormats: false });

const call = (path: string, init: RequestInit = {}) => app.handle(new Request(`http://localhost${path}`, init));
const withKey = (key: string, body?: unknown, method = body === undefined ? "GET" : "POST"): RequestInit => ({
  method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
});

/** The document's path for an app route, written out here apart from the generator. */
function docPath(path: string): string {
  const relative = path.startsWith("/v1/") ? path.slice(3) : path;
  return relative.replace("/*", "/{model}").replace(/:([a-z_]+)/g, "{$1}");
}

beforeAll(async () => {
  gw = await startTestGw();
  app = createApp(gw.deps);
  const res = await call("/v1/openapi.json");
  expect(res.status).toBe(200);
  doc = (await res.json()) as Json;
  ajv.addSchema(doc, "gw");
});
afterAll(() => gw.stop());

/** Validates a real answer against the schema the document gives for it. */
async function expectDescribed(method: string, path: string, res: Response): Promise<Json> {
  const status = String(res.status);
  const body = (await res.json()) as Json;
  const m = method.toLowerCase();
  if (!dig(doc, "paths", path, m)) throw new Error(`${method} ${path} is not in the document`);
  const response = dig(doc, "paths", path, m, "responses", status);
  if (!response) throw new Error(`${method} ${path}: no ${status} in the document`);
  const shared = dig(response, "$ref");
  const at = typeof shared === "string" ? shared : `#/paths/${pointer(path)}/${m}/responses/${status}`;
  expect(keysOf(dig(doc, ...at.slice(2).split("/").map((k) => k.replaceAll("~1", "/").replaceAll("~0", "~")), "content"))).toContain("application/json");
  const validate = ajv.compile({ $ref: `gw${at}/content/application~1json/schema` });
  if (!validate(body)) throw new Error(`${method} ${path} ${status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
  return body;
}

describe("the document", () => {
  test("served without a key, with gw's headers; valid OpenAPI 3.1 for @seriousme/openapi-schema-validator", async () => {
    const res = await call("/v1/openapi.json");
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("x-gw-api-version")).toBe("2026-10-04");
    expect(res.headers.get("x-gw-request-id")).toMatch(/^req_/);
    expect(doc.openapi).toBe("3.1.0");
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  test("every route of the app is in it (the probes and /v1), and every operation in it is a route", () => {
    expect(undocumentedRoutes(app.routes)).toEqual([]);
    // A route added without an entry in src/http/openapi/operations-*.ts is reported.
    expect(undocumentedRoutes([...app.routes, { method: "POST", path: "/v1/new-thing" }])).toEqual(["POST /v1/new-thing"]);
    const routes = app.routes.filter((r) => r.path.startsWith("/v1/") || r.path === "/healthz" || r.path === "/readyz");
    expect(routes.length).toBeGreaterThanOrEqual(50);
    for (const r of routes) {
      if (!dig(doc, "paths", docPath(r.path), r.method.toLowerCase())) throw new Error(`${r.method} ${r.path} is missing from the document`);
    }
    const paths = keysOf(doc.paths);
    const operations = paths.flatMap((path) => keysOf(dig(doc, "paths", path)).filter((k) => k !== "servers").map((m) => `${m.toUpperCase()} ${path}`));
    const appOps = new Set(app.routes.map((r) => `${r.method} ${docPath(r.path)}`));
    for (const op of operations) expect(appOps.has(op)).toBe(true);
    const ids = operations.map((op) => {
      const [m, path] = op.split(" ") as [string, string];
      return dig(doc, "paths", path, m.toLowerCase(), "operationId");
    });
    expect(new Set(ids).size).toBe(operations.length);
  });

  test("without GW_ADMIN_TOKEN neither the admin routes nor their operations exist", async () => {
    const plain = createApp({ ...gw.deps, config: { ...gw.deps.config, adminToken: null } });
    const d = (await (await plain.handle(new Request("http://localhost/v1/openapi.json"))).json()) as Json;
    expect(keysOf(d.paths).length).toBeGreaterThan(10);
    expect(keysOf(d.paths).some((p) => p.startsWith("/admin"))).toBe(false);
    expect(undocumentedRoutes(plain.routes)).toEqual([]);
  });

  test("request bodies are the schemas that validate them", () => {
    const body = (path: string) => dig(doc, "paths", path, "post", "requestBody", "content", "application/json", "schema");
    expect(body("/chat/completions")).toEqual(JSON.parse(JSON.stringify(ChatCompletionsBody)));
    expect(body("/embeddings")).toEqual(JSON.parse(JSON.stringify(EmbeddingsBody)));
    expect(body("/admin/projects")).toEqual(JSON.parse(JSON.stringify(CreateProjectBody)));
    expect(dig(body("/messages"), "required")).toEqual(expect.arrayContaining(["model", "messages", "max_tokens"]));
  });

  test("security, headers, parameters, the error envelope and the gw object", () => {
    const chat = dig(doc, "paths", "/chat/completions", "post");
    expect(dig(chat, "security")).toEqual([{ apiKey: ["chat"] }]);
    expect(dig(doc, "paths", "/requests", "get", "security")).toEqual([{ apiKey: ["requests"] }]);
    expect(dig(doc, "paths", "/messages", "post", "security")).toEqual([{ apiKey: ["chat"] }, { anthropicApiKey: ["chat"] }]);
    expect(dig(doc, "paths", "/admin/projects", "post", "security")).toEqual([{ adminToken: [] }]);
    expect(dig(doc, "paths", "/openapi.json", "get", "security")).toEqual([]);
    expect(dig(doc, "components", "securitySchemes", "apiKey")).toMatchObject({ type: "http", scheme: "bearer" });
    expect(dig(doc, "components", "securitySchemes", "adminToken")).toMatchObject({ type: "http", scheme: "bearer" });
    const params = dig(chat, "parameters") as Json[];
    const headers = params.map((p) => dig(doc, "components", "parameters", String(p.$ref).split("/").pop() ?? "", "name"));
    for (const h of ["Idempotency-Key", "X-Gw-Session", "X-Gw-Trace-Id", "X-Gw-Parent-Span", "X-Gw-Cache", "X-Gw-Cache-Scope"]) expect(headers).toContain(h);
    expect(keysOf(dig(chat, "responses", "200", "headers"))).toEqual(expect.arrayContaining(["X-Gw-Api-Version", "X-Gw-Request-Id", "X-Gw-Model", "X-Gw-Provider", "X-Gw-Cache", "Idempotent-Replayed"]));
    expect(keysOf(dig(chat, "responses", "200", "content"))).toEqual(["application/json", "text/event-stream"]);
    expect(dig(doc, "paths", "/models/{model}", "get", "parameters", "0")).toMatchObject({ name: "model", in: "path", required: true });
    expect((dig(doc, "paths", "/requests", "get", "parameters") as Json[]).map((p) => p.name)).toEqual(["limit", "after", "model", "status", "workflow_id", "trace_id"]);
    expect(dig(chat, "responses", "429", "$ref")).toBe("#/components/responses/Error429");
    expect(keysOf(dig(doc, "components", "responses", "Error429", "headers"))).toContain("Retry-After");
    expect(dig(doc, "components", "headers", "X-Gw-Api-Version", "schema", "const")).toBe("2026-10-04");
    expect(dig(doc, "components", "schemas", "ErrorEnvelope", "properties", "error", "required")).toEqual(["message", "type", "code", "param", "category", "request_id"]);
    expect(dig(doc, "components", "schemas", "GwObject", "required")).toEqual(expect.arrayContaining(["request_id", "selected_model", "provider", "cost", "saved", "cache", "fallbacks", "test"]));
    expect(dig(doc, "paths", "/healthz", "servers")).toEqual([{ url: "/" }]);
  });
});

describe("real answers validate against the document", () => {
  test("the schemas are not vacuous: bodies of another shape fail them", () => {
    const schema = (at: string) => ajv.compile({ $ref: `gw#/${at}` });
    expect(schema("paths/~1chat~1completions/post/responses/200/content/application~1json/schema")({ id: "x" })).toBe(false);
    expect(schema("components/schemas/ErrorEnvelope")({ error: { message: "m", type: "t", code: "nope" } })).toBe(false);
    expect(schema("components/schemas/GwObject")({ request_id: "req_x" })).toBe(false);
  });

  test("chat, embeddings, models, errors", async () => {
    const chat = await expectDescribed("POST", "/chat/completions", await call("/v1/chat/completions", withKey(gw.testKey, { messages: [{ role: "user", content: "hi" }] })));
    expect(dig(chat, "gw", "test")).toBe(true);
    await expectDescribed("POST", "/embeddings", await call("/v1/embeddings", withKey(gw.testKey, { input: ["a", "b"] })));
    await expectDescribed("POST", "/responses", await call("/v1/responses", withKey(gw.testKey, { input: "hi" })));
    await expectDescribed("GET", "/models", await call("/v1/models", withKey(gw.testKey)));
    await expectDescribed("GET", "/models/{model}", await call("/v1/models/openai/gpt-4o-mini", withKey(gw.testKey)));
    await expectDescribed("GET", "/models/{model}", await call("/v1/models/nope", withKey(gw.testKey)));
    await expectDescribed("POST", "/chat/completions", await call("/v1/chat/completions", withKey("gw_test_nope", { messages: [] })));
    await expectDescribed("POST", "/chat/completions", await call("/v1/chat/completions", withKey(gw.testKey, { messages: [] })));
    await expectDescribed("POST", "/chat/completions", await call("/v1/chat/completions", withKey(gw.testKey, { model: "gw-test:rate_limited", messages: [{ role: "user", content: "x" }] })));
    await expectDescribed("POST", "/messages", await call("/v1/messages", withKey(gw.testKey, { model: "gw-auto", max_tokens: 16, messages: [{ role: "user", content: "hi" }] })));
    await expectDescribed("POST", "/messages", await call("/v1/messages", withKey(gw.testKey, { model: "gw-auto", messages: [] })));
  });

  test("the request log, a request, feedback, metrics, cache invalidation, probes", async () => {
    const chat = (await (await call("/v1/chat/completions", withKey(gw.testKey, { messages: [{ role: "user", content: "log me" }] }))).json()) as Json;
    const id = String(dig(chat, "gw", "request_id"));
    await gw.drain();
    await expectDescribed("GET", "/requests", await call("/v1/requests?limit=5", withKey(gw.testKey)));
    await expectDescribed("GET", "/requests/{request_id}", await call(`/v1/requests/${id}`, withKey(gw.testKey)));
    await expectDescribed("POST", "/requests/{request_id}/feedback", await call(`/v1/requests/${id}/feedback`, withKey(gw.testKey, { rating: 5 })));
    await expectDescribed("POST", "/requests/{request_id}/feedback", await call(`/v1/requests/${id}/feedback`, withKey(gw.testKey, { rating: 9 })));
    await expectDescribed("GET", "/metrics", await call("/v1/metrics?period=1h", withKey(gw.testKey)));
    await expectDescribed("POST", "/cache/invalidate", await call("/v1/cache/invalidate", withKey(gw.testKey, { all: true })));
    await expectDescribed("GET", "/healthz", await call("/healthz"));
    await expectDescribed("GET", "/readyz", await call("/readyz"));
  });

  test("the admin API: a project, a key, the lists", async () => {
    const project = await expectDescribed("POST", "/admin/projects", await call("/v1/admin/projects", withKey(ADMIN_TOKEN, { name: "openapi" })));
    await expectDescribed("GET", "/admin/projects/{id}", await call(`/v1/admin/projects/${String(project.id)}`, withKey(ADMIN_TOKEN)));
    await expectDescribed("POST", "/admin/projects/{id}/keys", await call(`/v1/admin/projects/${String(project.id)}/keys`, withKey(ADMIN_TOKEN, { scopes: ["chat"] })));
    await expectDescribed("GET", "/admin/projects/{id}/keys", await call(`/v1/admin/projects/${String(project.id)}/keys`, withKey(ADMIN_TOKEN)));
    await expectDescribed("GET", "/admin/projects", await call("/v1/admin/projects", withKey(ADMIN_TOKEN)));
    await expectDescribed("GET", "/admin/projects/{id}", await call("/v1/admin/projects/prj_nope", withKey(ADMIN_TOKEN)));
  });
});
