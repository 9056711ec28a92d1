// The transport: headers, time-outs and safe retries. A POST that calls a model gets one
// Idempotency-Key per call, reused by every retry, so a retry never runs (or charges) twice.
import { ConnectionError, ConnectionTimeoutError, type GwError, errorFromResponse } from "./errors.js";
import { VERSION } from "./version.js";

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

const RETRY_STATUSES = new Set([409, 429, 502, 503, 504]);
const DEFAULT_URL = "http://127.0.0.1:8080/v1";

const env = (name: string): string | undefined => globalThis.process?.env?.[name] || undefined;

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Exponential backoff (0.5 s doubling, at most 8 s) less up to a quarter of jitter. */
export function backoffMs(retry: number): number {
  return Math.min(500 * 2 ** retry, 8000) * (1 - Math.random() * 0.25);
}

/** Retry-After (seconds or an HTTP date) or retry-after-ms, when it asks for 0 to 60 s. */
export function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number(headers.get("retry-after-ms") ?? NaN);
  if (Number.isFinite(ms) && ms >= 0 && ms <= 60_000) return ms;
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  const seconds = Number(value);
  const wait = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(wait) && wait >= 0 && wait <= 60_000 ? wait : undefined;
}

export class Core {
  readonly apiKey: string | undefined;
  readonly adminToken: string | undefined;
  readonly baseURL: string;
  readonly maxRetries: number;
  readonly timeout: number;
  readonly #fetch: Fetch;
  readonly #defaultHeaders: Record<string, string>;

  constructor(options: ClientOptions = {}) {
    this.apiKey = options.apiKey ?? env("GW_API_KEY");
    this.adminToken = options.adminToken ?? env("GW_ADMIN_TOKEN") ?? this.apiKey;
    this.baseURL = (options.baseURL ?? env("GW_BASE_URL") ?? DEFAULT_URL).replace(/\/+$/, "");
    this.maxRetries = options.maxRetries ?? 2;
    this.timeout = options.timeout ?? 600_000;
    this.#fetch = options.fetch ?? ((url, init) => fetch(url, init));
    this.#defaultHeaders = options.defaultHeaders ?? {};
  }

  #url(call: Call): string {
    let url = this.baseURL + call.path;
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined) query.set(k, String(v));
    if (query.size > 0) url += `?${query}`;
    return url;
  }

  #headers(call: Call): Record<string, string> {
    const o = call.options ?? {};
    const token = call.admin ? this.adminToken : this.apiKey;
    const h: Record<string, string> = { accept: "application/json", "user-agent": `gw-node/${VERSION}`, ...this.#defaultHeaders };
    if (token) h.authorization = `Bearer ${token}`;
    if (call.body !== undefined) h["content-type"] = "application/json";
    if (call.stream) h.accept = "text/event-stream";
    if (call.idempotent) h["idempotency-key"] = o.idempotencyKey ?? crypto.randomUUID();
    if (o.session !== undefined) h["x-gw-session"] = o.session;
    if (o.traceId !== undefined) h["x-gw-trace-id"] = o.traceId;
    if (o.parentSpan !== undefined) h["x-gw-parent-span"] = o.parentSpan;
    if (o.cache === "off") h["x-gw-cache"] = "off";
    if (o.cacheScope !== undefined) h["x-gw-cache-scope"] = o.cacheScope;
    return { ...h, ...o.headers };
  }

  /** Sends the call, retrying what is safe to retry; resolves with a 2xx answer or throws a GwError. */
  async send(call: Call): Promise<Answer> {
    const signal = call.options?.signal;
    const retries = call.retry === false ? 0 : (call.options?.maxRetries ?? this.maxRetries);
    const headers = this.#headers(call);
    const url = this.#url(call);
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    for (let attempt = 0; ; attempt++) {
      let answer: Answer;
      try {
        answer = await this.#attempt(url, { method: call.method, headers, body }, call);
      } catch (err) {
        if (signal?.aborted || !(err instanceof ConnectionError) || attempt >= retries) throw err;
        await sleep(backoffMs(attempt), signal);
        continue;
      }
      const { response } = answer;
      if (response.ok) return answer;
      if (attempt < retries && RETRY_STATUSES.has(response.status)) {
        await sleep(retryAfterMs(response.headers) ?? backoffMs(attempt), signal);
        continue;
      }
      throw this.#error(answer);
    }
  }

  #error({ response, text }: Answer): GwError {
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON: the status alone says what failed
    }
    return errorFromResponse(response.status, json, response.headers);
  }

  /** One attempt under the time-out; network failures and the time-out become ConnectionErrors. */
  async #attempt(url: string, init: RequestInit, call: Call): Promise<Answer> {
    const ms = call.options?.timeout ?? this.timeout;
    const userSignal = call.options?.signal;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, ms);
    const onAbort = () => controller.abort(userSignal?.reason);
    if (userSignal?.aborted) onAbort();
    else userSignal?.addEventListener("abort", onAbort, { once: true });
    try {
      const response = await this.#fetch(url, { ...init, signal: controller.signal });
      const text = call.stream && response.ok ? "" : await response.text();
      return { response, text };
    } catch (err) {
      if (userSignal?.aborted) throw userSignal.reason;
      if (timedOut) throw new ConnectionTimeoutError(`no answer from gw within ${ms} ms`, { cause: err });
      throw new ConnectionError(`cannot reach gw at ${this.baseURL}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    } finally {
      clearTimeout(timer);
      userSignal?.removeEventListener("abort", onAbort);
    }
  }

  /** A JSON call's parsed body and its response. */
  async json<T>(call: Call): Promise<{ data: T; response: Response }> {
    const { response, text } = await this.send(call);
    return { data: JSON.parse(text) as T, response };
  }
}

/** What `create` and friends return: await it for the body, or `.withResponse()` for the headers too. */
export class ApiPromise<T> implements PromiseLike<T> {
  readonly #inner: Promise<{ data: T; response: Response }>;
  readonly #data: Promise<T>;

  constructor(inner: Promise<{ data: T; response: Response }>) {
    this.#inner = inner;
    this.#data = inner.then((r) => r.data);
    // A caller using only withResponse() must not get an unhandled rejection from this branch.
    this.#data.catch(() => undefined);
  }

  /** The body with the HTTP response (headers such as Idempotent-Replayed, X-Gw-Request-Id). */
  withResponse(): Promise<{ data: T; response: Response }> {
    return this.#inner;
  }

  then<A = T, B = never>(onfulfilled?: ((value: T) => A | PromiseLike<A>) | null, onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    return this.#data.then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.#data.catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#data.finally(onfinally);
  }
}
