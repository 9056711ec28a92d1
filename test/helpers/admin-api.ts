// Calls to /v1/admin with the admin token (or another, or none), and the checks the admin contract
// tests share: a status with its JSON body, the error envelope, a project made through the API.
import { expect } from "bun:test";
import { ADMIN_TOKEN, type TestGw } from "./test-gw.ts";

export type Json = Record<string, unknown>;

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export function admin(gw: TestGw, method: string, path: string, body?: unknown, token: string | null = ADMIN_TOKEN): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return fetch(`${gw.url}/admin${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** The JSON body, after checking the status (a mismatch throws with the body, to show why). */
export async function ok(res: Response, status = 200): Promise<Json> {
  const body = (await res.json()) as Json;
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

export async function expectError(res: Response, status: number, code: string, param?: string): Promise<Json> {
  expect(res.status).toBe(status);
  const { error } = (await res.json()) as { error: Json };
  expect(error.code).toBe(code);
  if (param !== undefined) expect(error.param).toBe(param);
  expect(typeof error.message).toBe("string");
  return error;
}

export async function createProject(gw: TestGw, body: Json = { name: "acme" }): Promise<Json> {
  return ok(await admin(gw, "POST", "/projects", body), 201);
}

/** A project made through the admin API, with a live key (and its `requests` scope). */
export async function billedProject(gw: TestGw, body: Json = {}): Promise<{ id: string; key: string }> {
  const res = await admin(gw, "POST", "/projects", { name: "billing", ...body });
  if (res.status !== 201) throw new Error(`project not created: ${res.status} ${await res.text()}`);
  const { id } = (await res.json()) as { id: string };
  return { id, key: gw.key({ mode: "live", projectId: id, scopes: ["chat", "embeddings", "requests"] }) };
}

export async function addCredits(gw: TestGw, projectId: string, usd: number): Promise<number> {
  const res = await admin(gw, "POST", `/projects/${projectId}/credits`, { amount: usd });
  return ((await res.json()) as { balance: number }).balance;
}
