// A scripted stand-in for Anthropic's Messages API (POST /v1/messages) used by gw's tests:
// Bun.serve on 127.0.0.1 speaking the real wire format (JSON and SSE), recording every call.
import {
  API_VERSIONS, type Answer, type Json, type ToolUseSpec, defaultErrorJson, defaultText, defaultToolUse, errorFrame,
  errorJson, estimateTokens, inputTokens, invalidReason, isRecord, messageJson, sampleValue, stopText, streamFrames,
} from "./scripted-anthropic-bodies.ts";
import type { RecordedCall } from "./scripted-upstream.ts";
import { abortableSleep, ScriptQueue } from "./script-queue.ts";

export type { RecordedCall } from "./scripted-upstream.ts";

export interface UsageScript {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadInputTokens?: number;
  cacheCreationInputTokens?: number;
}

/**
 * A scripted reply. With `body` or a status >= 400 it is sent as is (`body` JSON-encoded; no body:
 * Anthropic's error object for the status). Otherwise the default behaviour runs with these
 * overrides (auth and validation still apply).
 */
export interface AnthropicReply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
  /** Answer this text (a text block before any `toolUses`). */
  text?: string;
  /** Answer these tool_use blocks (two or more: parallel tool calls); input defaults to a sample of the tool's schema. */
  toolUses?: Array<{ name: string; input?: Json }>;
  stopReason?: string;
  usage?: UsageScript;
  /** Streams: drop the connection after this many SSE events (ping included). */
  cutAfterEvents?: number;
  /** Streams: send `event: error` after this many events, then end the stream. */
  streamError?: { afterEvents: number; type: string; message: string };
}

export interface AnthropicUpstreamOptions {
  /** The only key accepted in x-api-key (default "sk-ant-test"). */
  apiKey?: string;
  /** Delay before the response headers of every request. */
  delayMs?: number;
  /** Pause between stream events. */
  chunkDelayMs?: number;
  /** Default answer text (default `Echo: <first 40 chars of the last user text>`). */
  text?: string | ((body: Json) => string);
  /** Usage numbers for every answer (cache reads and writes default to 0). */
  usage?: UsageScript;
  port?: number;
}

export interface ScriptedAnthropic {
  /** Base URL without /v1, as the SDK's baseURL, e.g. http://127.0.0.1:43123 */
  url: string;
  port: number;
  /** Every request received, in order (headers lower-cased; body parsed JSON, raw text if not JSON). */
  calls: RecordedCall[];
  callCount(path?: string): number;
  /** The next `times` requests get this reply instead of the default. */
  script(reply: AnthropicReply, times?: number): void;
  /** Requests whose client went away (connection closed / signal) before the reply finished. */
  aborted: number;
  /** Resolves once `count` requests have arrived (or `aborted` reached `count`): no polling. */
  until(what: "calls" | "aborted", count: number): Promise<void>;
  reset(): void;
  stop(): Promise<void>;
}

/** Abort bookkeeping of one request: `gone` counts a client that leaves before `settle`. */
interface Tracker {
  settle(): void;
  gone(): void;
}

const encoder = new TextEncoder();
const CUT_LINGER_MS = 20; // see scripted-upstream.ts: lets written frames reach the client before the RST

export async function startScriptedAnthropic(options: AnthropicUpstreamOptions = {}): Promise<ScriptedAnthropic> {
  const apiKey = options.apiKey ?? "sk-ant-test";
  const chunkDelayMs = options.chunkDelayMs ?? 0;
  const scripts = new ScriptQueue<AnthropicReply>();
  const counts = new Map<string, number>();
  const calls: RecordedCall[] = [];
  let total = 0;
  let seq = 0;
  let waiters: Array<{ what: "calls" | "aborted"; count: number; resolve: () => void }> = [];
  const wake = (): void => {
    waiters = waiters.filter((w) => {
      const reached = (w.what === "calls" ? total : api.aborted) >= w.count;
      if (reached) w.resolve();
      return !reached;
    });
  };

  const json = (status: number, body: string, extra?: Record<string, string>): Response =>
    new Response(body, { status, headers: { "content-type": "application/json", "request-id": `req_${seq}`, ...extra } });
  const invalid = (message: string): Response => json(400, errorJson("invalid_request_error", message));

  function answerFor(body: Json, reply: AnthropicReply | undefined): Answer {
    const id = (++seq).toString(36).padStart(8, "0");
    const tools = Array.isArray(body.tools) ? body.tools.filter(isRecord) : [];
    const schemaOf = (name: string): unknown => tools.find((t) => t.name === name)?.input_schema;
    let toolUses: ToolUseSpec[] | undefined = reply?.toolUses?.map((t) => {
      const sample = sampleValue(schemaOf(t.name) ?? { type: "object" });
      return { name: t.name, input: t.input ?? (isRecord(sample) ? sample : {}) };
    });
    let text = reply?.text ?? null;
    if (toolUses === undefined && text === null) {
      const tool = defaultToolUse(body);
      if (tool !== null) toolUses = [tool];
      else if (typeof options.text === "function") text = options.text(body);
      else text = options.text ?? defaultText(body.messages as unknown[]);
    }
    toolUses ??= [];
    let stopReason = "tool_use";
    let stopSequence: string | null = null;
    if (toolUses.length === 0 && text !== null) {
      const stopped = stopText(text, body);
      ({ text, reason: stopReason, sequence: stopSequence } = stopped);
    }
    const usage = { ...options.usage, ...reply?.usage };
    const produced = (text ?? "") + toolUses.map((t) => JSON.stringify(t.input)).join("");
    return {
      id: `msg_01gw${id}`,
      model: String(body.model),
      text,
      toolUses,
      toolIdBase: `toolu_01gw${id}_`,
      stopReason: reply?.stopReason ?? stopReason,
      stopSequence,
      inputTokens: usage.inputTokens ?? inputTokens(body),
      outputTokens: usage.outputTokens ?? Math.max(1, estimateTokens(produced)),
      cacheRead: usage.cacheReadInputTokens ?? 0,
      cacheWrite: usage.cacheCreationInputTokens ?? 0,
    };
  }

  function stream(answer: Answer, reply: AnthropicReply | undefined, req: Request, track: Tracker): Response {
    let frames = streamFrames(answer);
    const failAt = reply?.streamError;
    if (failAt) frames = [...frames.slice(0, failAt.afterEvents), errorFrame(failAt.type, failAt.message)];
    const headers = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "request-id": `req_${seq}`, ...reply?.headers };
    const cut = reply?.cutAfterEvents;
    if (chunkDelayMs <= 0 && cut === undefined) {
      track.settle();
      return new Response(frames.join(""), { status: 200, headers });
    }
    const limit = cut === undefined ? frames.length : Math.min(cut, frames.length - 1);
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        if (i > 0 && chunkDelayMs > 0 && !(await abortableSleep(chunkDelayMs, req.signal))) return;
        if (i === limit && limit < frames.length) {
          await Bun.sleep(CUT_LINGER_MS);
          track.settle();
          c.error(undefined); // Bun drops the socket without a final chunk: a cut, not an end
          return;
        }
        c.enqueue(encoder.encode(frames[i++]));
        if (i === frames.length) {
          track.settle();
          c.close();
        }
      },
      cancel: track.gone,
    });
    return new Response(body, { status: 200, headers });
  }

  function respond(req: Request, path: string, body: unknown, badJson: boolean, reply: AnthropicReply | undefined, track: Tracker): Response {
    if (reply !== undefined && (reply.body !== undefined || (reply.status ?? 200) >= 400)) {
      const status = reply.status ?? 200;
      return json(status, reply.body === undefined ? defaultErrorJson(status) : JSON.stringify(reply.body), reply.headers);
    }
    if (req.method !== "POST" || path !== "/v1/messages") return json(404, errorJson("not_found_error", "Not Found"));
    // The key comes as x-api-key (curl, gw) or as a Bearer token (the SDK since 1.0).
    const bearer = req.headers.get("authorization");
    const key = req.headers.get("x-api-key") ?? (bearer?.startsWith("Bearer ") ? bearer.slice(7) : null);
    if (key === null) return json(401, errorJson("authentication_error", "x-api-key header is required"));
    if (key !== apiKey) return json(401, errorJson("authentication_error", "invalid x-api-key"));
    const version = req.headers.get("anthropic-version");
    if (!version) return invalid("anthropic-version: header is required");
    if (!API_VERSIONS.includes(version)) return invalid(`anthropic-version: "${version}" is not a valid version`);
    if (badJson || !isRecord(body)) return invalid("The request body is not valid JSON.");
    const reason = invalidReason(body, version);
    if (reason !== null) return invalid(reason);
    const answer = answerFor(body, reply);
    if (body.stream === true) return stream(answer, reply, req, track);
    return json(200, messageJson(answer), reply?.headers);
  }

  async function handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const text = await req.text();
    let body: unknown = null;
    let badJson = false;
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
        badJson = true;
      }
    }
    total++;
    counts.set(url.pathname, (counts.get(url.pathname) ?? 0) + 1);
    const headers: Record<string, string> = {};
    req.headers.forEach((value, name) => {
      headers[name.toLowerCase()] = value;
    });
    calls.push({ method: req.method, path: url.pathname, headers, body });
    wake();

    // A client that goes away before the reply is settled counts as aborted, once.
    let settled = false;
    const track: Tracker = {
      settle: () => {
        settled = true;
      },
      gone: () => {
        if (settled) return;
        settled = true;
        api.aborted++;
        wake();
      },
    };
    req.signal.addEventListener("abort", track.gone, { once: true });
    const reply = scripts.next();
    const delay = reply?.delayMs ?? options.delayMs ?? 0;
    if (delay > 0 && !(await abortableSleep(delay, req.signal))) return new Response(null, { status: 499 });
    const res = respond(req, url.pathname, body, badJson, reply, track);
    if (!res.headers.get("content-type")?.startsWith("text/event-stream")) track.settle();
    return res;
  }

  const server = Bun.serve({ hostname: "127.0.0.1", port: options.port ?? 0, fetch: handle });
  const port = server.port ?? 0;
  const api: ScriptedAnthropic = {
    url: `http://127.0.0.1:${port}`,
    port,
    calls,
    aborted: 0,
    until(what, count) {
      return new Promise((resolve) => {
        waiters.push({ what, count, resolve });
        wake();
      });
    },
    callCount: (path) => (path === undefined ? total : counts.get(path) ?? 0),
    script(reply, times = 1) {
      scripts.push(reply, times);
    },
    reset() {
      calls.length = 0;
      scripts.clear();
      counts.clear();
      total = 0;
      api.aborted = 0;
    },
    async stop() {
      await server.stop(true);
    },
  };
  return api;
}
