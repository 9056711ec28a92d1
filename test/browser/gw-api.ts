// HTTP calls the browser tests make beside the browser: chat requests with a key, the admin API, and
// the dashboard's JSON API through a session cookie (docs/dashboard.md "Pages").
import type { GwProcess } from "../helpers/gw-binary.ts";

export interface Chat {
  id: string;
  /** X-Gw-Cache: exact, semantic or miss. */
  cache: string | null;
  model: string | null;
  status: number;
}

/** A chat completion; `body` adds or overrides fields (a `model`, `metadata`, `gw`, `tags`). */
export async function chat(gw: GwProcess, key: string, content: string, headers: Record<string, string> = {}, body: Record<string, unknown> = {}): Promise<Chat> {
  const res = await fetch(`${gw.origin}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "gw-auto", messages: [{ role: "user", content }], ...body }),
  });
  await res.arrayBuffer();
  return { id: res.headers.get("x-gw-request-id") ?? "", cache: res.headers.get("x-gw-cache"), model: res.headers.get("x-gw-model"), status: res.status };
}

export async function adminCall<T>(gw: GwProcess, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${gw.origin}/v1/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${gw.adminToken}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} /v1/admin${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** A new project and a key of it with the given mode and scopes. */
export async function projectWithKey(gw: GwProcess, name: string, scopes: string[], mode: "live" | "test" = "test"): Promise<{ projectId: string; key: string }> {
  const project = await adminCall<{ id: string }>(gw, "POST", "/projects", { name });
  const { key } = await adminCall<{ key: string }>(gw, "POST", `/projects/${project.id}/keys`, { mode, scopes });
  return { projectId: project.id, key };
}

export interface DashSession {
  cookie: string;
  csrf: string;
  get(path: string): Promise<Response>;
  post(path: string, body: unknown): Promise<Response>;
}

/** Signs in to the dashboard API with a token; `path`s are under /dashboard/api. */
export async function dashSession(gw: GwProcess, token: string): Promise<DashSession> {
  const res = await fetch(`${gw.origin}/dashboard/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token }),
  });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`sign-in: ${res.status} ${body}`);
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const csrf = (JSON.parse(body) as { csrf_token: string }).csrf_token;
  const api = `${gw.origin}/dashboard/api`;
  return {
    cookie,
    csrf,
    get: (path) => fetch(api + path, { headers: { cookie } }),
    post: (path, json) =>
      fetch(api + path, { method: "POST", headers: { cookie, "x-gw-csrf": csrf, "content-type": "application/json" }, body: JSON.stringify(json) }),
  };
}
