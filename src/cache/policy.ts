// Whether the response cache may be read and written for a request (docs/cache.md "Classification"): the skip
// rules in their documented order, `cache.refresh`, and whether the semantic cache may also match.
// Pure: reads the parsed request, the analysis, the project policy and two headers.
import type { Analysis } from "../analysis/analyzer.ts";
import type { ChatRequest } from "../canonical/chat.ts";

/** Why the cache was not used; recorded as `trace.cache.miss_reason`. */
export type SkipReason =
  | "live_data" | "tool_messages" | "tools" | "n_greater_than_1" | "personal_without_user"
  | "policy_off" | "retention_minimal" | "retention_zero" | "header_off" | "bypass"
  | "audio_output" | "web_search";

/** Audio answers (`modalities` with "audio", or `audio`) carry provider-side audio ids that
 * expire, and web search answers are live by nature: neither is stored. Every other field that
 * changes the answer joins the exact key instead (key.ts). */
function uncacheableField(req: ChatRequest): SkipReason | null {
  if ((Array.isArray(req.modalities) && req.modalities.includes("audio")) || (req.audio !== undefined && req.audio !== null)) return "audio_output";
  if (req.web_search_options !== undefined && req.web_search_options !== null) return "web_search";
  return null;
}

export interface CacheDecision {
  /** Look up a stored answer. */
  read: boolean;
  /** Store the fresh answer (also with cache.refresh, which only turns reading off). */
  write: boolean;
  skip: SkipReason | null;
  refresh: boolean;
  /** The semantic cache may match this request, or why not. */
  semantic: { eligible: boolean; reason: string | null };
}

export interface ProjectCachePolicy {
  cache?: unknown;
  semantic_cache?: unknown;
  retention?: unknown;
}

/** About 500 tokens (docs/cache.md "Semantic lookups"): a short question, not a document. */
export const SEMANTIC_MAX_TOKENS = 500;

function skipReason(req: ChatRequest, analysis: Analysis, policy: ProjectCachePolicy, headerOff: boolean): SkipReason | null {
  // Tool results are live by nature (the analyzer flags them too); the more precise reason first.
  if (req.messages.some((m) => m.role === "tool")) return "tool_messages";
  if (analysis.liveData) return "live_data";
  if (req.tools?.length) return "tools";
  if (typeof req.n === "number" && req.n > 1) return "n_greater_than_1";
  const field = uncacheableField(req);
  if (field) return field;
  if (analysis.personal && !req.user) return "personal_without_user";
  if (policy.cache === false) return "policy_off";
  // Minimal and zero retention keep no content, and the cache is content (docs/retention.md);
  // redacted reads it, and cache-store decides what it may store.
  if (policy.retention === "minimal") return "retention_minimal";
  if (policy.retention === "zero") return "retention_zero";
  if (headerOff) return "header_off";
  const cache = req.cache as { mode?: unknown } | undefined;
  if (cache?.mode === "bypass") return "bypass";
  return null;
}

/** A single short user question, at most one system message, no response_format, nothing personal. */
function semanticEligibility(req: ChatRequest, analysis: Analysis, policy: ProjectCachePolicy, inputTokens: number): CacheDecision["semantic"] {
  if (policy.semantic_cache !== true) return { eligible: false, reason: "semantic_off" };
  const users = req.messages.filter((m) => m.role === "user");
  const systems = req.messages.filter((m) => m.role === "system" || m.role === "developer");
  if (users.length !== 1 || systems.length > 1 || users.length + systems.length !== req.messages.length) {
    return { eligible: false, reason: "not_a_single_question" };
  }
  if (typeof users[0]!.content !== "string") return { eligible: false, reason: "not_text" };
  if (req.response_format && req.response_format.type !== "text") return { eligible: false, reason: "response_format" };
  if (analysis.personal) return { eligible: false, reason: "personal" };
  if (inputTokens > SEMANTIC_MAX_TOKENS) return { eligible: false, reason: "too_long" };
  return { eligible: true, reason: null };
}

export function decideCache(req: ChatRequest, analysis: Analysis, policy: ProjectCachePolicy, headerOff: boolean, inputTokens: number): CacheDecision {
  const skip = skipReason(req, analysis, policy, headerOff);
  if (skip) return { read: false, write: false, skip, refresh: false, semantic: { eligible: false, reason: skip } };
  const refresh = (req.cache as { refresh?: unknown } | undefined)?.refresh === true;
  return { read: !refresh, write: true, skip: null, refresh, semantic: semanticEligibility(req, analysis, policy, inputTokens) };
}
