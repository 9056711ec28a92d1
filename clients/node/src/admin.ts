// The admin API (docs/api.md "Admin API"), called with the admin token. Creations and credits are
// not retried: the admin API takes no Idempotency-Key, so a retry could create or credit twice.
import { ApiPromise, type Core, type RequestOptions } from "./core.js";

export interface Project {
  object: "project";
  id: string;
  name: string;
  plan: "free" | "pro" | "business";
  billing: { mode: "prepaid" | "postpaid"; balance: number; credit_limit: number | null };
  policy: Record<string, unknown>;
  created_at: string;
  [key: string]: unknown;
}

export interface ProjectCreateParams {
  name: string;
  plan?: "free" | "pro" | "business";
  billing?: { mode?: "prepaid" | "postpaid"; credit_limit?: number | null };
  policy?: Record<string, unknown>;
}

export interface KeyCreateParams {
  name?: string;
  scopes?: Array<"chat" | "embeddings" | "models" | "cache" | "requests">;
  mode?: "live" | "test";
  byok?: boolean;
  ip_allowlist?: string[];
}

export interface ApiKey {
  object: "key";
  id: string;
  /** The secret: only in the answer to `create`. */
  key?: string;
  scopes: string[];
  mode: "live" | "test";
  created_at: string;
  [key: string]: unknown;
}

const seg = encodeURIComponent;

class AdminProjects {
  constructor(private readonly core: Core) {}
  create(body: ProjectCreateParams, options?: RequestOptions): ApiPromise<Project> {
    return new ApiPromise(this.core.json<Project>({ method: "POST", path: "/admin/projects", body, options, admin: true, retry: false }));
  }
  list(options?: RequestOptions): ApiPromise<{ object: "list"; data: Project[] }> {
    return new ApiPromise(this.core.json<{ object: "list"; data: Project[] }>({ method: "GET", path: "/admin/projects", options, admin: true }));
  }
  get(id: string, options?: RequestOptions): ApiPromise<Project> {
    return new ApiPromise(this.core.json<Project>({ method: "GET", path: `/admin/projects/${seg(id)}`, options, admin: true }));
  }
  /** `policy` is merged key by key; `null` unsets a key. */
  update(id: string, body: Partial<ProjectCreateParams>, options?: RequestOptions): ApiPromise<Project> {
    return new ApiPromise(this.core.json<Project>({ method: "PATCH", path: `/admin/projects/${seg(id)}`, body, options, admin: true }));
  }
}

class AdminKeys {
  constructor(private readonly core: Core) {}
  create(projectId: string, body: KeyCreateParams = {}, options?: RequestOptions): ApiPromise<ApiKey> {
    const path = `/admin/projects/${seg(projectId)}/keys`;
    return new ApiPromise(this.core.json<ApiKey>({ method: "POST", path, body, options, admin: true, retry: false }));
  }
  list(projectId: string, options?: RequestOptions): ApiPromise<{ object: "list"; data: ApiKey[] }> {
    const path = `/admin/projects/${seg(projectId)}/keys`;
    return new ApiPromise(this.core.json<{ object: "list"; data: ApiKey[] }>({ method: "GET", path, options, admin: true }));
  }
  revoke(keyId: string, options?: RequestOptions): ApiPromise<{ object: "key"; id: string; revoked: true }> {
    const path = `/admin/keys/${seg(keyId)}`;
    return new ApiPromise(this.core.json<{ object: "key"; id: string; revoked: true }>({ method: "DELETE", path, options, admin: true }));
  }
}

class AdminCredits {
  constructor(private readonly core: Core) {}
  /** Adds `amount` USD of credit; answers the new balance. */
  add(projectId: string, body: { amount: number }, options?: RequestOptions): ApiPromise<{ object: "credits"; balance: number }> {
    const path = `/admin/projects/${seg(projectId)}/credits`;
    return new ApiPromise(this.core.json<{ object: "credits"; balance: number }>({ method: "POST", path, body, options, admin: true, retry: false }));
  }
}

export class Admin {
  readonly projects: AdminProjects;
  readonly keys: AdminKeys;
  readonly credits: AdminCredits;
  constructor(core: Core) {
    this.projects = new AdminProjects(core);
    this.keys = new AdminKeys(core);
    this.credits = new AdminCredits(core);
  }
}
