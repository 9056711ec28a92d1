// The token engine's shared vocabulary (docs/optimization.md): modes, the request's `optimization`
// options once validated, what each stage records in trace.optimization, and the contract a stage
// keeps. Stages are pure: they return a changed copy of the request or null, never mutate it.
import type { ChatRequest } from "../canonical/chat.ts";

export const MODES = ["off", "safe", "balanced", "aggressive"] as const;
export type OptimizationMode = (typeof MODES)[number];
/** A mode runs every stage whose minimum mode is at or below it. */
export const MODE_RANK: { readonly [M in OptimizationMode]: number } = { off: 0, safe: 1, balanced: 2, aggressive: 3 };

/** The stages, in the order they run. */
export const STAGE_NAMES = [
  "json_minify", "whitespace", "dedupe_documents", "cache_align", "columnar_arrays", "tool_prune", "history_window",
] as const;
export type StageName = (typeof STAGE_NAMES)[number];

/** `do_not_compress` entries: a role, the last user turn, or a 0-based message index. */
export type Untouchable = "system" | "user" | "assistant" | "tool" | "last_user" | number;

/** `preserve` entries: a literal that must survive, or `{regex}` whose matches in the original must. */
export type PreserveItem = string | { regex: string };

/** The request's `optimization` object, validated (docs/optimization.md "Request options"). */
export interface OptimizationOptions {
  mode: OptimizationMode;
  preserve: PreserveItem[];
  do_not_compress: Untouchable[];
  /** 0-based message indexes holding retrieved documents (dedupe_documents). */
  documents: number[];
  /** JSON paths (`$.items[*].id` style, see docs) kept or dropped by json_minify. */
  fields: { keep: string[]; drop: string[] };
}

export type RevertReason = "no_gain" | "preserve" | "error";

/** One stage as trace.optimization.stages records it. */
export interface StageRecord {
  name: StageName;
  applied: boolean;
  before_tokens: number;
  after_tokens: number;
  ms: number;
  reverted_reason?: RevertReason;
}

/** trace.optimization. */
export interface OptimizationTrace {
  mode: OptimizationMode;
  original_tokens: number;
  final_tokens: number;
  stages: StageRecord[];
}

/** What a stage reads besides the request. */
export interface StageContext {
  options: OptimizationOptions;
  /** Messages no stage may change: do_not_compress resolved to indexes, and messages too small to
   * be worth it (under ~250 tokens); a stage leaves these byte-identical. */
  untouchable: ReadonlySet<number>;
  /** The context window to fit (history_window): the requested model's, or for a routing profile
   * the largest an eligible model offers; null when unknown. */
  windowTokens: number | null;
  /** Tokens of a request's messages and tools, as the gates count them. */
  countTokens: (req: ChatRequest) => number;
}

export interface Stage {
  name: StageName;
  /** The lowest mode that runs it. */
  from: Exclude<OptimizationMode, "off">;
  /** The changed copy of `req`, or null when there is nothing to do. Must not mutate `req`. */
  run: (req: ChatRequest, ctx: StageContext) => ChatRequest | null;
  /** Stage-specific proof that nothing was lost (beyond the engine's entity and preserve checks):
   * e.g. minified JSON deep-equal after parsing, columns decoding to the original rows. False
   * reverts the stage with reverted_reason "preserve". */
  verify?: (before: ChatRequest, after: ChatRequest, ctx: StageContext) => boolean;
  /** The stage proves each change of its own (a repeat's reference to an unchanged first copy), so
   * it may change messages under the small-message size: its ctx.untouchable holds only the
   * do_not_compress ones, and the gate does not hold the small ones unchanged for it. */
  judgesSmall?: true;
}
