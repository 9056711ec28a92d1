// The response cache's keys (docs/cache.md "Keys"): the exact key covers every key component and
// every field that reaches the provider, each message with every field it carries; the semantic
// partition is the same without the user's question.
import { canonicalJson } from "../lib/json.ts";
import type { ChatMessage, ChatRequest } from "../canonical/chat.ts";
import type { Policy } from "../schema/admin.ts";
import type { GwOptions } from "../schema/chat-completions.ts";

/** The routing and security settings of the policy, which join the key. */
export type KeyPolicy = Pick<Policy, "pii" | "secrets" | "allowed_providers" | "blocked_providers" | "regions" | "retention">;

export interface KeyContext {
  projectId: string;
  /** "live" or "test": a simulated answer must never reach a live key. */
  mode: string;
  scope: string | null;
  policy: KeyPolicy;
  /** gw's options beside the request (parse keeps them apart): routing, max_cost, gw.versions and
   * optimization join the key. Absent, they are read off the request itself. */
  options?: GwOptions;
}

/** Whitespace runs become one space; most texts have none to collapse, which one scan finds. */
const NEEDS_COLLAPSE = /\s\s|[\t\n\r\f\v]/;
const isSpace = (code: number | undefined): boolean => code === 32 || code === 160;
function collapse(text: string): string {
  if (!NEEDS_COLLAPSE.test(text) && !isSpace(text.charCodeAt(0)) && !isSpace(text.charCodeAt(text.length - 1))) return text;
  return text.replace(/\s+/g, " ").trim();
}
/** The caller's own objects in canonical key order; absent ones as null. */
const canon = (v: unknown): string | null => (v === undefined || v === null ? null : canonicalJson(v));

function contentText(content: ChatMessage["content"]): string {
  if (typeof content === "string") return collapse(content);
  if (!Array.isArray(content)) return "";
  return canonicalJson(content.map((p) => (p.type === "text" && typeof p.text === "string" ? { type: "text", text: collapse(p.text) } : p)));
}

/** A message's fields beyond role, name and content (tool_calls, tool_call_id, refusal, a
 * provider's cache_control or any unknown one) in canonical order; "" when it has none. */
function messageExtras(m: ChatMessage): string {
  let out: Record<string, unknown> | null = null;
  for (const k of Object.keys(m)) {
    if (k === "role" || k === "content" || k === "name") continue;
    const v: unknown = Reflect.get(m, k);
    if (v !== undefined && v !== null) (out ??= {})[k] = v;
  }
  return out === null ? "" : canonicalJson(out);
}

/** Fields that cannot change the answer: those keyed by name below, transport (`stream`), gw's own
 * labels, `n` (n > 1 is never cached, n: 1 is the default) and OpenAI's storage and abuse ids.
 * Every other field rides to the provider (openai-compatible/request.ts), so it joins the key:
 * an unknown field is assumed to change the answer rather than risk serving a wrong one. */
const NOT_EXTRA = new Set([
  "model", "messages", "response_format", "max_tokens", "max_completion_tokens", "temperature", "top_p", "stop", "tools",
  "routing", "max_cost", "user", "gw", "stream", "stream_options", "metadata", "tags", "cache", "n", "store",
  "prompt_cache_key", "safety_identifier",
]);

/** The request's other fields (seed, logit_bias, reasoning_effort, ...) in canonical order; null
 * counts as absent (OpenAI reads it as the default). Null when there are none, the common case. */
function extras(req: ChatRequest, optimization: unknown): string | null {
  let out: Record<string, unknown> | null = null;
  for (const k of Object.keys(req)) {
    const v = req[k];
    if (v === undefined || v === null || NOT_EXTRA.has(k)) continue;
    (out ??= {})[k] = v;
  }
  // gw's optimization options change what reaches the provider, so they join the key too.
  if (optimization !== undefined && optimization !== null) (out ??= {}).optimization = optimization;
  return out === null ? null : canonicalJson(out);
}

/** Everything but the messages: the key components (docs/cache.md "Keys") and the sampling fields of the request.
 * Built in a fixed order; only the caller's own objects need canonical key order. */
function components(req: ChatRequest, ctx: KeyContext): string {
  const p = ctx.policy;
  const o = ctx.options;
  const gw = (o?.gw ?? req.gw ?? {}) as { versions?: Record<string, unknown> };
  const routing = (o?.routing ?? req.routing ?? {}) as Record<string, unknown>;
  return JSON.stringify([
    2, ctx.projectId, ctx.mode, typeof req.user === "string" ? req.user : null, ctx.scope, req.model,
    canon(req.response_format), req.max_tokens ?? req.max_completion_tokens ?? null, req.temperature ?? null,
    req.top_p ?? null, canon(req.stop), canon(req.tools),
    routing.mode ?? null, routing.min_quality ?? null, o?.max_cost ?? req.max_cost ?? null,
    p.pii ?? null, p.secrets ?? null, canon(p.allowed_providers), canon(p.blocked_providers), canon(p.regions), p.retention ?? null,
    canon(gw.versions), extras(req, o?.optimization),
  ]);
}

export interface CacheKeys {
  exact: string;
  /** Components plus every message but the last user question (the system prompt included). */
  partition: string;
}

/** What each key hashes: the partition skips the last user message, the exact key does not. A NUL
 * separates fields (it cannot occur unescaped in the JSON parts, and texts are framed by length). */
export interface CacheKeyTexts {
  exact: string;
  partition: string;
}

export function cacheKeyTexts(req: ChatRequest, ctx: KeyContext): CacheKeyTexts {
  const lastUser = req.messages.findLastIndex((m) => m.role === "user");
  let before = components(req, ctx);
  let question = "";
  let after = "";
  for (let i = 0; i < req.messages.length; i++) {
    const m = req.messages[i]!;
    const text = contentText(m.content);
    const more = messageExtras(m);
    const framed = `\u0000${m.role}\u0000${m.name ?? ""}\u0000${text.length}\u0000${text}\u0000${more.length}\u0000${more}`;
    if (i < lastUser) before += framed;
    else if (i === lastUser) question = framed;
    else after += framed;
  }
  return { exact: before + question + after, partition: before + after };
}

/** One call per key: the same digest as feeding the text's pieces to a hasher one by one, as
 * earlier versions did (every piece ends in an ASCII character, so no surrogate pair spans two). */
export const hashKeyText = (text: string): string => Bun.SHA256.hash(text, "hex");

/** Both keys; cache-lookup hashes the partition only when something will read it. */
export function cacheKeys(req: ChatRequest, ctx: KeyContext): CacheKeys {
  const texts = cacheKeyTexts(req, ctx);
  return { exact: hashKeyText(texts.exact), partition: hashKeyText(texts.partition) };
}
