/** What the client needs of fetch; the global fetch is one. */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;
export interface ClientOptions {
    /** Default: the GW_API_KEY environment variable. */
    apiKey?: string;
    /** The admin token for `gw.admin` (default GW_ADMIN_TOKEN, then apiKey). */
    adminToken?: string;
    /** Default: GW_BASE_URL, then http://127.0.0.1:8080/v1. */
    baseURL?: string;
    /** Retries after the first attempt (default 2). */
    maxRetries?: number;
    /** Milliseconds per attempt (default 600000); for streams, until the answer starts. */
    timeout?: number;
    /** A fetch implementation (default: the global one). */
    fetch?: Fetch;
    /** Headers sent with every request. */
    defaultHeaders?: Record<string, string>;
}
/** Per-call options, apart from the body (docs/api.md "Request headers"). */
export interface RequestOptions {
    /** Idempotency-Key; default: one generated per call (chat, responses, embeddings). */
    idempotencyKey?: string;
    /** X-Gw-Session: sticky routing and provider-cache reuse across turns. */
    session?: string;
    /** X-Gw-Trace-Id (at most 40 characters). */
    traceId?: string;
    /** X-Gw-Parent-Span (at most 24 characters). */
    parentSpan?: string;
    /** "off" sends X-Gw-Cache: off (neither read nor store the response cache). */
    cache?: "off";
    /** X-Gw-Cache-Scope: share cached answers only inside this scope. */
    cacheScope?: string;
    timeout?: number;
    signal?: AbortSignal;
    maxRetries?: number;
    headers?: Record<string, string>;
}
export interface Call {
    method: "GET" | "POST" | "PATCH" | "DELETE";
    path: string;
    query?: Record<string, string | number | undefined>;
    body?: unknown;
    options?: RequestOptions | undefined;
    /** Send an Idempotency-Key (the POSTs that call a model). */
    idempotent?: boolean;
    /** Retried on network errors and 409/429/502/503/504 (default true). */
    retry?: boolean;
    admin?: boolean;
    /** Return as soon as the headers are in (the caller reads the body). */
    stream?: boolean;
}
export interface Answer {
    response: Response;
    /** The body text, unless the call streams. */
    text: string;
}
/** Exponential backoff (0.5 s doubling, at most 8 s) less up to a quarter of jitter. */
export declare function backoffMs(retry: number): number;
/** Retry-After (seconds or an HTTP date) or retry-after-ms, when it asks for 0 to 60 s. */
export declare function retryAfterMs(headers: Headers): number | undefined;
export declare class Core {
    #private;
    readonly apiKey: string | undefined;
    readonly adminToken: string | undefined;
    readonly baseURL: string;
    readonly maxRetries: number;
    readonly timeout: number;
    constructor(options?: ClientOptions);
    /** Sends the call, retrying what is safe to retry; resolves with a 2xx answer or throws a GwError. */
    send(call: Call): Promise<Answer>;
    /** A JSON call's parsed body and its response. */
    json<T>(call: Call): Promise<{
        data: T;
        response: Response;
    }>;
}
/** What `create` and friends return: await it for the body, or `.withResponse()` for the headers too. */
export declare class ApiPromise<T> implements PromiseLike<T> {
    #private;
    constructor(inner: Promise<{
        data: T;
        response: Response;
    }>);
    /** The body with the HTTP response (headers such as Idempotent-Replayed, X-Gw-Request-Id). */
    withResponse(): Promise<{
        data: T;
        response: Response;
    }>;
    then<A = T, B = never>(onfulfilled?: ((value: T) => A | PromiseLike<A>) | null, onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B>;
    catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B>;
    finally(onfinally?: (() => void) | null): Promise<T>;
}
