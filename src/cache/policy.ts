// Whether the response cache may be read and written for a request (docs/cache.md "Classification"): the skip
// rules in their documented order, `cache.refresh`, and whether the semantic cache may also match.
// Pure: reads the parsed request, the analysis, the project policy and two headers.
import type { GwOptions } from "../schema/chat-completions.ts";
import type { Analysis } from "../analysis/analyzer.ts";
import type { ChatRequest } from "../canonical/chat.ts";
import type { Policy } from "../schema/admin.ts";
import type { KeyPolicy } from "./key.ts";
import { SEMANTIC_THRESHOLDS } from "./semantic-decision.ts";

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

/** The project's cache settings, compiled once per authenticated key (auth/project-rules.ts). */
export interface CacheRules {
  /** `cache: false` turns the response cache off for the project. */
  readonly off: boolean;
  readonly semantic: boolean;
  /** `semantic_threshold` when above 0, else the threshold of `semantic_mode` (balanced). */
  readonly semanticThreshold: number;
  /** `cache_ttl` in seconds; unset: the TTL follows the content (ttl-and-tags.ts). */
  readonly ttlSeconds: number | undefined;
  /** The policy settings that join the exact key (key.ts). */
  readonly keyPolicy: KeyPolicy;
}

export function cacheRulesOf(p: Policy): CacheRules {
  const threshold = p.semantic_threshold;
  return Object.freeze({
    off: p.cache === false,
    semantic: p.semantic_cache === true,
    semanticThreshold: threshold !== undefined && threshold > 0 ? threshold : SEMANTIC_THRESHOLDS[p.semantic_mode ?? "balanced"],
    ttlSeconds: p.cache_ttl,
    keyPolicy: Object.freeze({
      pii: p.pii, secrets: p.secrets, allowed_providers: p.allowed_providers, blocked_providers: p.blocked_providers,
      regions: p.regions, retention: p.retention,
    }),
  });
}

/** What the decision reads of the compiled rules. */
export interface CacheDecisionRules {
  readonly cache: CacheRules;
  readonly retention: string;
}

/** About 500 tokens (docs/cache.md "Semantic lookups"): a short question, not a document. */
export const SEMANTIC_MAX_TOKENS = 500;

function skipReason(req: ChatRequest, options: GwOptions, analysis: Analysis, rules: CacheDecisionRules, headerOff: boolean): SkipReason | null {
  // Tool results are live by nature (the analyzer flags them too); the more precise reason first.
  if (req.messages.some((m) => m.role === "tool")) return "tool_messages";
  if (analysis.liveData) return "live_data";
  if (req.tools?.length) return "tools";
  if (typeof req.n === "number" && req.n > 1) return "n_greater_than_1";
  const field = uncacheableField(req);
  if (field) return field;
  if (analysis.personal && !req.user) return "personal_without_user";
  if (rules.cache.off) return "policy_off";
  // Minimal and zero retention keep no content, and the cache is content (docs/retention.md);
  // redacted reads it, and cache-store decides what it may store.
  if (rules.retention === "minimal") return "retention_minimal";
  if (rules.retention === "zero") return "retention_zero";
  if (headerOff) return "header_off";
  if (options.cache?.mode === "bypass") return "bypass";
  return null;
}

/** A single short user question, at most one system message, no response_format, nothing personal. */
function semanticEligibility(req: ChatRequest, analysis: Analysis, cache: CacheRules, inputTokens: number): CacheDecision["semantic"] {
  if (!cache.semantic) return { eligible: false, reason: "semantic_off" };
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

export function decideCache(req: ChatRequest, options: GwOptions, analysis: Analysis, rules: CacheDecisionRules, headerOff: boolean, inputTokens: number): CacheDecision {
  const skip = skipReason(req, options, analysis, rules, headerOff);
  if (skip) return { read: false, write: false, skip, refresh: false, semantic: { eligible: false, reason: skip } };
  const refresh = options.cache?.refresh === true;
  return { read: !refresh, write: true, skip: null, refresh, semantic: semanticEligibility(req, analysis, rules.cache, inputTokens) };
}
