// A scripted stand-in for Google's Gemini API used by gw's tests: Bun.serve on 127.0.0.1 speaking
// generateContent and streamGenerateContent (alt=sse, or a JSON array without it), embedContent and
// batchEmbedContents, recording calls.
import {
  API_KEY_INVALID, API_KEY_MISSING, type FunctionCallSpec, type GeminiAnswer, type Json, defaultErrorBody,
  defaultFunctionCall, echo, embedRequestError, embedResponseJson, googleError, isRecord, promptTokens, requestError,
  responseJson, sseFrame, streamEvents,
} from "./scripted-gemini-bodies.ts";
import { abortableSleep, ScriptQueue } from "./script-queue.ts";

export interface RecordedGeminiCall {
  method: string;
  path: string;
  query: Record<string, string>;
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** Parsed JSON, the raw text when not JSON, null when empty. */
  body: unknown;
}

/** A scripted reply. With `body` or a status >= 400 it is sent as is (`body` JSON-encoded, or a
 * string verbatim; no body: Google's error for the status). Otherwise these override the default. */
export interface ScriptedGeminiReply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
  /** Answer this text, even when the request has tools. */
  text?: string;
  /** Answer these function calls (parallel when several), even without tools. */
  functionCalls?: FunctionCallSpec[];
  /** Gemini 3's signature on the first functionCall part. */
  thoughtSignature?: string;
  /** e.g. "SAFETY", "MAX_TOKENS" (default "STOP"). */
  finishReason?: string;
  /** Block the prompt: promptFeedback.blockReason and no candidates. */
  blockReason?: string;
  cachedTokens?: number;
  thoughtsTokens?: number;
  /** Streams: drop the connection after this many events. */
  cutAfterEvents?: number;
  /** Streams: send a Google error object as an event after this many events, then end. */
  errorAfterEvents?: number;
}

export interface GeminiUpstreamOptions {
  /** The key x-goog-api-key (or ?key=) must carry; default "gm-test". */
  apiKey?: string;
  /** Delay before the response headers of every request. */
  delayMs?: number;
  /** Pause between stream events. */
  chunkDelayMs?: number;
  /** Default answer text (default `Echo: <first 40 chars of the last user text>`). */
  content?: string | ((body: Json) => string);
  /** Answer 400 when a model functionCall comes back without a thoughtSignature (Gemini 3). */
  requireThoughtSignatures?: boolean;
  record?: boolean;
  port?: number;
}

export interface ScriptedGemini {
  /** The host, without a version path: http://127.0.0.1:<port> */
  url: string;
  port: number;
  calls: RecordedGeminiCall[];
  /** Requests received, all or for a path ending ("…:streamGenerateContent", ":batchEmbedContents"). */
  callCount(pathEnd?: string): number;
  /** The next `times` requests get this reply instead of the default. */
  script(reply: ScriptedGeminiReply, times?: number): void;
  /** Requests whose client went away before a delayed or paced reply finished. */
  aborted: number;
  reset(): void;
  stop(): Promise<void>;
}

/** v1beta is what gw calls; v1 (the SDK's default) serves the same methods. */
const ROUTE = /^\/v1(?:beta)?\/models\/([^/:]+):(generateContent|streamGenerateContent|embedContent|batchEmbedContents)$/;
const EMBED_METHODS = new Set(["embedContent", "batchEmbedContents"]);
const JSON_TYPE = { "content-type": "application/json; charset=UTF-8" };
const CUT_LINGER_MS = 20;
const encoder = new TextEncoder();

export async function startScriptedGemini(options: GeminiUpstreamOptions = {}): Promise<ScriptedGemini> {
  const apiKey = options.apiKey ?? "gm-test";
  const record = options.record !== false;
  const scripts = new ScriptQueue<ScriptedGeminiReply>();
  const calls: RecordedGeminiCall[] = [];
  const paths: string[] = [];
  let seq = 0;

  const json = (status: number, body: string, extra?: Record<string, string>): Response =>
    new Response(body, { status, headers: { ...JSON_TYPE, ...extra } });

  function answerFor(model: string, body: Json, reply: ScriptedGeminiReply | undefined): GeminiAnswer {
    let functionCalls = reply?.functionCalls ?? null;
    let text = reply?.text ?? null;
    if (!functionCalls && text === null) {
      const call = defaultFunctionCall(body);
      if (call) functionCalls = [call];
      else text = typeof options.content === "function" ? options.content(body) : options.content ?? echo(body.contents as unknown[]);
    }
    return {
      model,
      responseId: `gm${(++seq).toString(36).padStart(8, "0")}`,
      text,
      functionCalls,
      thoughtSignature: reply?.thoughtSignature,
      finishReason: reply?.finishReason ?? "STOP",
      blockReason: reply?.blockReason,
      promptTokens: promptTokens(body),
      cachedTokens: reply?.cachedTokens ?? 0,
      thoughtsTokens: reply?.thoughtsTokens ?? 0,
    };
  }

  function streamResponse(
    req: Request, answer: GeminiAnswer, reply: ScriptedGeminiReply | undefined, sse: boolean, onEnd: () => void, gone: () => void,
  ): Response {
    const events = streamEvents(answer);
    const status = reply?.status ?? 200;
    if (!sse) return json(status, `[${events.map((e) => JSON.stringify(e)).join(",\r\n")}]`, reply?.headers);
    const frames = events.map(sseFrame);
    const errorAt = reply?.errorAfterEvents;
    if (errorAt !== undefined) frames.splice(errorAt, frames.length, sseFrame(JSON.parse(googleError(500)) as Json));
    const cut = reply?.cutAfterEvents;
    const pause = options.chunkDelayMs ?? 0;
    let i = 0;
    const stream = new ReadableStream<Uint8Array>({
      async pull(c) {
        if (i > 0 && pause > 0 && !(await abortableSleep(pause, req.signal))) return;
        if (cut !== undefined && i >= cut) {
          // Linger so the frames already sent reach the client before the reset (as scripted-upstream.ts).
          await Bun.sleep(CUT_LINGER_MS);
          onEnd();
          c.error(undefined);
          return;
        }
        c.enqueue(encoder.encode(frames[i++]));
        if (i === frames.length) {
          onEnd();
          c.close();
        }
      },
      cancel: gone,
    });
    return new Response(stream, { status, headers: { "content-type": "text/event-stream", ...reply?.headers } });
  }

  async function handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const text = req.method === "GET" ? "" : await req.text();
    let body: unknown = null;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const headers: Record<string, string> = {};
    req.headers.forEach((v, k) => void (headers[k.toLowerCase()] = v));
    paths.push(url.pathname);
    if (record) calls.push({ method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body });

    const reply = scripts.next();
    let done = false;
    const onEnd = (): void => void (done = true);
    const gone = (): void => {
      if (!done) api.aborted++;
      done = true;
    };
    req.signal.addEventListener("abort", gone, { once: true });
    const delay = reply?.delayMs ?? options.delayMs ?? 0;
    if (delay > 0 && !(await abortableSleep(delay, req.signal))) return new Response(null, { status: 499 });
    if (reply && (reply.body !== undefined || (reply.status ?? 200) >= 400)) {
      onEnd();
      const status = reply.status ?? 200;
      if (typeof reply.body === "string") return new Response(reply.body, { status, headers: reply.headers });
      return json(status, reply.body === undefined ? defaultErrorBody(status) : JSON.stringify(reply.body), reply.headers);
    }
    const key = headers["x-goog-api-key"] ?? url.searchParams.get("key");
    const route = ROUTE.exec(url.pathname);
    const method = route?.[2] ?? "";
    const model = decodeURIComponent(route?.[1] ?? "");
    let error: Response | null = null;
    if (!key) error = json(403, API_KEY_MISSING);
    else if (key !== apiKey) error = json(400, API_KEY_INVALID);
    else if (!route) error = json(404, googleError(404, `Unknown path ${url.pathname}.`));
    else if (req.method !== "POST") error = json(405, googleError(400, `Method ${req.method} not allowed.`));
    else if (!isRecord(body)) error = json(400, googleError(400, "Invalid JSON payload received."));
    else {
      const invalid = EMBED_METHODS.has(method)
        ? embedRequestError(method, body, model)
        : requestError(body, options.requireThoughtSignatures === true);
      if (invalid) error = json(400, invalid);
    }
    if (error || !route || !isRecord(body)) {
      onEnd();
      return error ?? json(500, googleError(500));
    }
    if (EMBED_METHODS.has(method)) {
      onEnd();
      return json(reply?.status ?? 200, embedResponseJson(method, body), reply?.headers);
    }
    const answer = answerFor(model, body, reply);
    if (method === "streamGenerateContent") return streamResponse(req, answer, reply, url.searchParams.get("alt") === "sse", onEnd, gone);
    onEnd();
    return json(reply?.status ?? 200, responseJson(answer), reply?.headers);
  }

  const server = Bun.serve({ hostname: "127.0.0.1", port: options.port ?? 0, fetch: handle });
  const port = server.port ?? 0;
  const api: ScriptedGemini = {
    url: `http://127.0.0.1:${port}`,
    port,
    calls,
    aborted: 0,
    callCount: (pathEnd) => (pathEnd === undefined ? paths.length : paths.filter((p) => p.endsWith(pathEnd)).length),
    script(reply, times = 1) {
      scripts.push(reply, times);
    },
    reset() {
      calls.length = 0;
      paths.length = 0;
      scripts.clear();
      api.aborted = 0;
    },
    stop: () => server.stop(true),
  };
  return api;
}
