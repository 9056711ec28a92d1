// The transport: headers, time-outs and safe retries. A POST that calls a model gets one
// Idempotency-Key per call, reused by every retry, so a retry never runs (or charges) twice.
import { ConnectionError, ConnectionTimeoutError, errorFromResponse } from "./errors.js";
import { VERSION } from "./version.js";
const RETRY_STATUSES = new Set([409, 429, 502, 503, 504]);
const DEFAULT_URL = "http://127.0.0.1:8080/v1";
const env = (name) => globalThis.process?.env?.[name] || undefined;
function sleep(ms, signal) {
    return new Promise((resolve, reject) => {
        if (signal?.aborted)
            return reject(signal.reason);
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
export function backoffMs(retry) {
    return Math.min(500 * 2 ** retry, 8000) * (1 - Math.random() * 0.25);
}
/** Retry-After (seconds or an HTTP date) or retry-after-ms, when it asks for 0 to 60 s. */
export function retryAfterMs(headers) {
    const ms = Number(headers.get("retry-after-ms") ?? NaN);
    if (Number.isFinite(ms) && ms >= 0 && ms <= 60_000)
        return ms;
    const value = headers.get("retry-after");
    if (value === null)
        return undefined;
    const seconds = Number(value);
    const wait = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
    return Number.isFinite(wait) && wait >= 0 && wait <= 60_000 ? wait : undefined;
}
export class Core {
    apiKey;
    adminToken;
    baseURL;
    maxRetries;
    timeout;
    #fetch;
    #defaultHeaders;
    constructor(options = {}) {
        this.apiKey = options.apiKey ?? env("GW_API_KEY");
        this.adminToken = options.adminToken ?? env("GW_ADMIN_TOKEN") ?? this.apiKey;
        this.baseURL = (options.baseURL ?? env("GW_BASE_URL") ?? DEFAULT_URL).replace(/\/+$/, "");
        this.maxRetries = options.maxRetries ?? 2;
        this.timeout = options.timeout ?? 600_000;
        this.#fetch = options.fetch ?? ((url, init) => fetch(url, init));
        this.#defaultHeaders = options.defaultHeaders ?? {};
    }
    #url(call) {
        let url = this.baseURL + call.path;
        const query = new URLSearchParams();
        for (const [k, v] of Object.entries(call.query ?? {}))
            if (v !== undefined)
                query.set(k, String(v));
        if (query.size > 0)
            url += `?${query}`;
        return url;
    }
    #headers(call) {
        const o = call.options ?? {};
        const token = call.admin ? this.adminToken : this.apiKey;
        const h = { accept: "application/json", "user-agent": `gw-node/${VERSION}`, ...this.#defaultHeaders };
        if (token)
            h.authorization = `Bearer ${token}`;
        if (call.body !== undefined)
            h["content-type"] = "application/json";
        if (call.stream)
            h.accept = "text/event-stream";
        if (call.idempotent)
            h["idempotency-key"] = o.idempotencyKey ?? crypto.randomUUID();
        if (o.session !== undefined)
            h["x-gw-session"] = o.session;
        if (o.traceId !== undefined)
            h["x-gw-trace-id"] = o.traceId;
        if (o.parentSpan !== undefined)
            h["x-gw-parent-span"] = o.parentSpan;
        if (o.cache === "off")
            h["x-gw-cache"] = "off";
        if (o.cacheScope !== undefined)
            h["x-gw-cache-scope"] = o.cacheScope;
        return { ...h, ...o.headers };
    }
    /** Sends the call, retrying what is safe to retry; resolves with a 2xx answer or throws a GwError. */
    async send(call) {
        const signal = call.options?.signal;
        const retries = call.retry === false ? 0 : (call.options?.maxRetries ?? this.maxRetries);
        const headers = this.#headers(call);
        const url = this.#url(call);
        const body = call.body === undefined ? undefined : JSON.stringify(call.body);
        for (let attempt = 0;; attempt++) {
            let answer;
            try {
                answer = await this.#attempt(url, { method: call.method, headers, body }, call);
            }
            catch (err) {
                if (signal?.aborted || !(err instanceof ConnectionError) || attempt >= retries)
                    throw err;
                await sleep(backoffMs(attempt), signal);
                continue;
            }
            const { response } = answer;
            if (response.ok)
                return answer;
            if (attempt < retries && RETRY_STATUSES.has(response.status)) {
                await sleep(retryAfterMs(response.headers) ?? backoffMs(attempt), signal);
                continue;
            }
            throw this.#error(answer);
        }
    }
    #error({ response, text }) {
        let json = null;
        try {
            json = JSON.parse(text);
        }
        catch {
            // not JSON: the status alone says what failed
        }
        return errorFromResponse(response.status, json, response.headers);
    }
    /** One attempt under the time-out; network failures and the time-out become ConnectionErrors. */
    async #attempt(url, init, call) {
        const ms = call.options?.timeout ?? this.timeout;
        const userSignal = call.options?.signal;
        const controller = new AbortController();
        let timedOut = false;
        const timer = setTimeout(() => {
            timedOut = true;
            controller.abort();
        }, ms);
        const onAbort = () => controller.abort(userSignal?.reason);
        if (userSignal?.aborted)
            onAbort();
        else
            userSignal?.addEventListener("abort", onAbort, { once: true });
        try {
            const response = await this.#fetch(url, { ...init, signal: controller.signal });
            const text = call.stream && response.ok ? "" : await response.text();
            return { response, text };
        }
        catch (err) {
            if (userSignal?.aborted)
                throw userSignal.reason;
            if (timedOut)
                throw new ConnectionTimeoutError(`no answer from gw within ${ms} ms`, { cause: err });
            throw new ConnectionError(`cannot reach gw at ${this.baseURL}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
        }
        finally {
            clearTimeout(timer);
            userSignal?.removeEventListener("abort", onAbort);
        }
    }
    /** A JSON call's parsed body and its response. */
    async json(call) {
        const { response, text } = await this.send(call);
        return { data: JSON.parse(text), response };
    }
}
/** What `create` and friends return: await it for the body, or `.withResponse()` for the headers too. */
export class ApiPromise {
    #inner;
    #data;
    constructor(inner) {
        this.#inner = inner;
        this.#data = inner.then((r) => r.data);
        // A caller using only withResponse() must not get an unhandled rejection from this branch.
        this.#data.catch(() => undefined);
    }
    /** The body with the HTTP response (headers such as Idempotent-Replayed, X-Gw-Request-Id). */
    withResponse() {
        return this.#inner;
    }
    then(onfulfilled, onrejected) {
        return this.#data.then(onfulfilled, onrejected);
    }
    catch(onrejected) {
        return this.#data.catch(onrejected);
    }
    finally(onfinally) {
        return this.#data.finally(onfinally);
    }
}
