import { ApiPromise, type Core, type RequestOptions } from "./core.js";
export interface Project {
    object: "project";
    id: string;
    name: string;
    plan: "free" | "pro" | "business";
    billing: {
        mode: "prepaid" | "postpaid";
        balance: number;
        credit_limit: number | null;
    };
    policy: Record<string, unknown>;
    created_at: string;
    [key: string]: unknown;
}
export interface ProjectCreateParams {
    name: string;
    plan?: "free" | "pro" | "business";
    billing?: {
        mode?: "prepaid" | "postpaid";
        credit_limit?: number | null;
    };
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
declare class AdminProjects {
    private readonly core;
    constructor(core: Core);
    create(body: ProjectCreateParams, options?: RequestOptions): ApiPromise<Project>;
    list(options?: RequestOptions): ApiPromise<{
        object: "list";
        data: Project[];
    }>;
    get(id: string, options?: RequestOptions): ApiPromise<Project>;
    /** `policy` is merged key by key; `null` unsets a key. */
    update(id: string, body: Partial<ProjectCreateParams>, options?: RequestOptions): ApiPromise<Project>;
}
declare class AdminKeys {
    private readonly core;
    constructor(core: Core);
    create(projectId: string, body?: KeyCreateParams, options?: RequestOptions): ApiPromise<ApiKey>;
    list(projectId: string, options?: RequestOptions): ApiPromise<{
        object: "list";
        data: ApiKey[];
    }>;
    revoke(keyId: string, options?: RequestOptions): ApiPromise<{
        object: "key";
        id: string;
        revoked: true;
    }>;
}
declare class AdminCredits {
    private readonly core;
    constructor(core: Core);
    /** Adds `amount` USD of credit; answers the new balance. */
    add(projectId: string, body: {
        amount: number;
    }, options?: RequestOptions): ApiPromise<{
        object: "credits";
        balance: number;
    }>;
}
export declare class Admin {
    readonly projects: AdminProjects;
    readonly keys: AdminKeys;
    readonly credits: AdminCredits;
    constructor(core: Core);
}
export {};
