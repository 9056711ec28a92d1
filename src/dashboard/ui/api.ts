// The dashboard's one way to the server: same-origin fetches of /dashboard/api, the CSRF header on
// every write, errors as ApiError with the envelope's code (docs/dashboard.md "Sign-in and roles").
import { signal } from "@preact/signals";
import type { Session } from "./types.ts";

export const API_PREFIX = "/dashboard/api";

/** The signed-in session; null before sign-in (the app then shows the sign-in page). */
export const session = signal<Session | null>(null);

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

type Params = Record<string, string | number | boolean | null | undefined>;

export function apiUrl(path: string, params: Params = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return `${API_PREFIX}${path}${s ? `?${s}` : ""}`;
}

async function parse<T>(res: Response): Promise<T> {
  const body = (await res.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
  if (!res.ok) {
    if (res.status === 401) session.value = null;
    throw new ApiError(res.status, body?.error?.code ?? "error", body?.error?.message ?? `HTTP ${res.status}`);
  }
  return body as T;
}

export async function getJson<T>(path: string, params: Params = {}): Promise<T> {
  return parse<T>(await fetch(apiUrl(path, params), { credentials: "same-origin" }));
}

export async function send<T>(method: "POST" | "PATCH" | "DELETE", path: string, body?: unknown, params: Params = {}): Promise<T> {
  // No content-type without a body: a JSON parser would reject the empty DELETE.
  const headers: Record<string, string> = {};
  const csrf = session.value?.csrf_token;
  if (csrf) headers["x-gw-csrf"] = csrf;
  const init: RequestInit = { method, headers, credentials: "same-origin" };
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  return parse<T>(await fetch(apiUrl(path, params), init));
}
