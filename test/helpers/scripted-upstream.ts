// A scripted stand-in for OpenAI (and every OpenAI-compatible provider) used by gw's tests and
// benchmarks: Bun.serve on 127.0.0.1 speaking OpenAI's wire format, recording every call.

import {
  AUTH_ERROR,
  BAD_JSON_ERROR,
  type ChatAnswer,
  DONE_FRAME,
  INPUT_ERROR,
  MESSAGES_ERROR,
  MODEL_ERROR,
  NOT_OBJECT_ERROR,
  type Json,
  MODELS,
  MODELS_JSON,
  chatCompletionJson,
  chatStreamFrames,
  defaultContent,
  defaultErrorJson,
  defaultToolCall,
  embeddingsJson,
  errorJson,
  isRecord,
  promptTokens,
} from "./scripted-upstream-bodies.ts";
import { abortableSleep, ScriptQueue } from "./script-queue.ts";

export interface RecordedCall {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * A scripted reply. With `body` or a status >= 400 it is sent as is (`body` JSON-encoded, or verbatim as
 * text/plain when a string; no body: OpenAI's error object for the status). Otherwise the default
 * behaviour runs with these overrides (auth and validation still apply).
 */
export interface ScriptedReply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
  /** for streams: cut the connection after this many chunks */
  cutAfterChunks?: number;
  /** Answer this text, even when the request has tools. */
  content?: string;
  /** Answer these tool calls (finish_reason "tool_calls"), even when the request has no tools. */
  toolCalls?: Array<{ name: string; arguments: string }>;
}

export interface UpstreamOptions {
  /** Delay before the response headers of every request. */
  delayMs?: number;
  /** Pause between stream chunks. */
  chunkDelayMs?: number;
  /** Default answer text (default `Echo: <first 40 chars of the last user message>`); requests with tools still get a tool call. */
  content?: string | ((body: Record<string, unknown>) => string);
  port?: number;
  /** Keep `calls` (default true). Benchmarks may turn it off; `callCount` still counts. */
  record?: boolean;
}

export interface ScriptedUpstream {
  /** Base URL including /v1, e.g. http://127.0.0.1:43123/v1 */
  url: string;
  port: number;
  /** Every request received, in order (headers lower-cased; body parsed JSON, raw text if not JSON, null if empty). */
  calls: RecordedCall[];
  /** Requests received, all or for one path ("/v1/embeddings"; "/embeddings" works too). */
  callCount(path?: string): number;
  /** The next `times` requests (any path) get this reply instead of the default. */
  script(reply: ScriptedReply, times?: number): void;
  /** Number of requests whose client aborted (connection closed / signal) before the reply finished. */
  aborted: number;
  /** Clears calls, counts, scripts and the aborted count. */
  reset(): void;
  stop(): Promise<void>;
}

const encoder = new TextEncoder();
const CUT_LINGER_MS = 20;
const JSON_HEADERS = { "content-type": "application/json" };

/** Abort bookkeeping of one request: `gone` counts a client that leaves before `settle`. */
interface Pending {
  /** Set when the reply is a paced stream, still unfinished when the handler returns. */
  live: boolean;
  settle(): void;
  gone(): void;
}

export async function startScriptedUpstream(options: UpstreamOptions = {}): Promise<ScriptedUpstream> {
  const record = options.record !== false;
  const chunkDelayMs = options.chunkDelayMs ?? 0;
  const scripts = new ScriptQueue<ScriptedReply>();
  const counts = new Map<string, number>();
  let total = 0;
  let seq = 0;

  const json = (status: number, body: string, extra?: Record<string, string>): Response =>
    new Response(body, { status, headers: extra ? { "content-type": "application/json", ...extra } : JSON_HEADERS });

  function chat(body: Json, reply: ScriptedReply | undefined, req: Request, pending: Pending | null): Response {
    const messages = body.messages;
    if (typeof body.model !== "string" || body.model === "") return json(400, MODEL_ERROR);
    if (!Array.isArray(messages) || messages.length === 0) return json(400, MESSAGES_ERROR);
    let toolCalls = reply?.toolCalls ?? null;
    let content: string | null = reply?.content ?? null;
    if (toolCalls === null && content === null) {
      const tool = defaultToolCall(body);
      if (tool !== null) toolCalls = [tool];
      else if (typeof options.content === "function") content = options.content(body);
      else content = options.content ?? defaultContent(messages);
    }
    const id = (++seq).toString(36).padStart(8, "0");
    const answer: ChatAnswer = {
      id: `chatcmpl-gw${id}`,
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      content: toolCalls === null ? content : null,
      toolCalls,
      promptTokens: promptTokens(messages),
      toolCallIdBase: `call_gw${id}_`,
    };
    const status = reply?.status ?? 200;
    if (body.stream !== true) return json(status, chatCompletionJson(answer), reply?.headers);

    const so = body.stream_options;
    const frames = chatStreamFrames(answer, isRecord(so) && so.include_usage === true);
    const headers = {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      ...reply?.headers,
    };
    const cut = reply?.cutAfterChunks;
    if (chunkDelayMs <= 0 && cut === undefined) {
      return new Response(frames.join("") + DONE_FRAME, { status, headers });
    }
    frames.push(DONE_FRAME);
    const limit = cut === undefined ? frames.length : Math.min(cut, frames.length - 1);
    let i = 0;
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      async pull(c) {
        if (i > 0 && chunkDelayMs > 0 && !(await abortableSleep(chunkDelayMs, req.signal))) return;
        if (i === limit) {
          // Bun drops a cut connection with a RST, which can discard frames the client has
          // not read yet; lingering first lets them arrive (20 ms: 0 of 900 lost at 300 concurrent).
          await Bun.sleep(CUT_LINGER_MS);
          pending?.settle();
          // An undefined reason makes Bun drop the socket without the final chunk and without logging.
          c.error(undefined);
          return;
        }
        if (cancelled) return;
        c.enqueue(encoder.encode(frames[i++]));
        if (i === frames.length) {
          pending?.settle();
          c.close();
        }
      },
      cancel() {
        cancelled = true;
        pending?.gone();
      },
    });
    if (pending !== null) pending.live = true;
    return new Response(stream, { status, headers });
  }

  async function handle(req: Request): Promise<Response> {
    const url = req.url;
    const start = url.indexOf("/", url.indexOf("//") + 2);
    const q = url.indexOf("?", start);
    const path = q === -1 ? url.slice(start) : url.slice(start, q);
    const method = req.method;
    let body: unknown = null;
    let badJson = false;
    if (method !== "GET" && method !== "HEAD") {
      const text = await req.text();
      if (text.length > 0) {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
          badJson = true;
        }
      }
    }
    total++;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    if (record) {
      const headers: Record<string, string> = {};
      req.headers.forEach((value, key) => {
        headers[key.toLowerCase()] = value;
      });
      calls.push({ method, path, headers, body });
    }

    const reply = scripts.next();
    const delay = reply?.delayMs ?? options.delayMs ?? 0;
    const paced = isRecord(body) && body.stream === true && (chunkDelayMs > 0 || reply?.cutAfterChunks !== undefined);
    if (delay <= 0 && !paced) return respond(req, method, path, body, badJson, reply, null);
    // Only slow replies can be abandoned by the client, so only they pay for abort tracking.
    let settled = false;
    const pending: Pending = {
      live: false,
      settle: () => {
        settled = true;
      },
      gone: () => {
        if (settled) return;
        settled = true;
        api.aborted++;
      },
    };
    req.signal.addEventListener("abort", pending.gone, { once: true });
    if (delay > 0 && !(await abortableSleep(delay, req.signal))) return new Response(null, { status: 499 });
    const res = respond(req, method, path, body, badJson, reply, pending);
    if (!pending.live) settled = true;
    return res;
  }

  function respond(
    req: Request,
    method: string,
    path: string,
    body: unknown,
    badJson: boolean,
    reply: ScriptedReply | undefined,
    pending: Pending | null,
  ): Response {
    if (reply !== undefined && (reply.body !== undefined || (reply.status ?? 200) >= 400)) {
      const status = reply.status ?? 200;
      if (typeof reply.body === "string") {
        return new Response(reply.body, { status, headers: { "content-type": "text/plain", ...reply.headers } });
      }
      const b = reply.body === undefined ? defaultErrorJson(status) : JSON.stringify(reply.body);
      return json(status, b, reply.headers);
    }

    const auth = req.headers.get("authorization");
    if (auth === null || !auth.startsWith("Bearer ") || auth.length <= 7) return json(401, AUTH_ERROR);

    const route = `${method} ${path}`;
    if (route === "POST /v1/chat/completions" || route === "POST /v1/embeddings") {
      if (badJson) return json(400, BAD_JSON_ERROR);
      if (!isRecord(body)) return json(400, NOT_OBJECT_ERROR);
      if (route === "POST /v1/chat/completions") return chat(body, reply, req, pending);
      if (typeof body.model !== "string" || body.model === "") return json(400, MODEL_ERROR);
      const out = embeddingsJson(body);
      return out === null ? json(400, INPUT_ERROR) : json(reply?.status ?? 200, out, reply?.headers);
    }
    if (route === "GET /v1/models") return json(200, MODELS_JSON);
    if (method === "GET" && path.startsWith("/v1/models/")) {
      const id = decodeURIComponent(path.slice("/v1/models/".length));
      const model = MODELS.find((m) => m.id === id);
      if (model !== undefined) return json(200, JSON.stringify(model));
      return json(
        404,
        errorJson(`The model '${id}' does not exist`, "invalid_request_error", "model", "model_not_found"),
      );
    }
    const known = path === "/v1/chat/completions" || path === "/v1/embeddings" || path === "/v1/models";
    const msg = known ? `Invalid method for URL (${method} ${path})` : `Invalid URL (${method} ${path})`;
    return json(known ? 405 : 404, errorJson(msg, "invalid_request_error", null, null));
  }

  const server = Bun.serve({ hostname: "127.0.0.1", port: options.port ?? 0, fetch: handle });
  const port = server.port ?? 0;
  const calls: RecordedCall[] = [];
  const api: ScriptedUpstream = {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    calls,
    aborted: 0,
    callCount(path?: string): number {
      if (path === undefined) return total;
      return counts.get(path) ?? counts.get(`/v1${path}`) ?? 0;
    },
    script(reply: ScriptedReply, times = 1): void {
      scripts.push(reply, times);
    },
    reset(): void {
      calls.length = 0;
      scripts.clear();
      counts.clear();
      total = 0;
      api.aborted = 0;
    },
    async stop(): Promise<void> {
      await server.stop(true);
    },
  };
  return api;
}
