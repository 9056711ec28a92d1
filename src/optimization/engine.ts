// The token engine (docs/optimization.md): the stages of a mode in order, each kept only when it
// lowers the token count (token gate) and loses nothing the original says (preserve gate, gates.ts);
// otherwise reverted with its reason. The trace's final count is the original minus what was kept.
import { countTextTokens, messageText } from "../analysis/tokens.ts";
import type { ChatMessage, ChatRequest } from "../canonical/chat.ts";
import { baselineOf, commitGate, preserveHolds, type Baseline } from "./preserve-gate.ts";
import { applyFields } from "./stages/json-minify.ts";
import {
  MODE_RANK, type OptimizationMode, type OptimizationOptions, type OptimizationTrace, type RevertReason, type Stage, type StageContext,
  type StageName, type StageRecord,
} from "./types.ts";

/** Messages under this many tokens are left as they are: small requests pay nothing. */
export const SMALL_MESSAGE_TOKENS = 250;
/** Stages that drop whole turns by design: the gate holds them to preserve items, do_not_compress
 * messages and unchanged code, not to every fact of the dropped turns. */
const DROPS_TURNS: ReadonlySet<StageName> = new Set(["history_window"]);
/** Stages whose gain is the provider's prompt cache (a stable prefix), not fewer tokens: the token
 * gate lets them add up to CACHE_TOLERANCE of the count (a canonical key order may tokenize a
 * little worse than the caller's), cheap beside a prefix the provider bills at its cached rate. */
const FOR_THE_CACHE: ReadonlySet<StageName> = new Set(["cache_align"]);
export const CACHE_TOLERANCE = 0.01;

function noGain(stage: StageName, before: number, after: number): boolean {
  return FOR_THE_CACHE.has(stage) ? after > before + Math.floor(before * CACHE_TOLERANCE) : after >= before;
}

// OpenAI's chat framing, as analysis/tokens.ts countMessageTokens counts it.
const PER_MESSAGE = 3;
const REPLY_PRIMER = 3;

const messageMemo = new WeakMap<ChatMessage, number>();
const toolsMemo = new WeakMap<object, number>();

/** A message's tokens, counted once per message object: a stage's copy that keeps the unchanged
 * messages costs only the changed ones. */
export function messageTokens(m: ChatMessage): number {
  let n = messageMemo.get(m);
  if (n === undefined) messageMemo.set(m, (n = PER_MESSAGE + (m.name ? 1 : 0) + countTextTokens(messageText(m))));
  return n;
}

/** Messages with the chat framing (countMessageTokens' count, each message counted on its own),
 * plus the tool definitions as JSON. */
export function requestTokens(req: ChatRequest): number {
  let total = REPLY_PRIMER;
  for (const m of req.messages) total += messageTokens(m);
  const tools = req.tools;
  if (tools && tools.length > 0) {
    let t = toolsMemo.get(tools);
    if (t === undefined) toolsMemo.set(tools, (t = countTextTokens(JSON.stringify(tools))));
    total += t;
  }
  return total;
}

/** Indexes of the messages `do_not_compress` names. */
export function keptIndexes(req: ChatRequest, options: OptimizationOptions): Set<number> {
  const out = new Set<number>();
  const entries = options.do_not_compress;
  if (entries.length === 0) return out;
  let lastUser = -1;
  for (let i = 0; i < req.messages.length; i++) if (req.messages[i]!.role === "user") lastUser = i;
  for (const e of entries) {
    if (typeof e === "number") out.add(e);
    else if (e === "last_user") {
      if (lastUser >= 0) out.add(lastUser);
    } else req.messages.forEach((m, i) => m.role === e && out.add(i));
  }
  return out;
}

/** Indexes of messages too small to be worth changing. */
function smallIndexes(req: ChatRequest): Set<number> {
  const out = new Set<number>();
  req.messages.forEach((m, i) => messageTokens(m) < SMALL_MESSAGE_TOKENS && out.add(i));
  return out;
}

export function stageContext(req: ChatRequest, options: OptimizationOptions, windowTokens: number | null): StageContext {
  const untouchable = smallIndexes(req);
  for (const i of keptIndexes(req, options)) untouchable.add(i);
  return { options, untouchable, windowTokens, countTokens: requestTokens };
}

export interface Optimized {
  request: ChatRequest;
  trace: OptimizationTrace;
}

const round3 = (ms: number): number => Math.round(ms * 1000) / 1000;

/** The gate's baseline for a stage: a judgesSmall stage is not held to leave small messages as they were. */
const gateFor = (stage: Stage, b: Baseline): Baseline => (stage.judgesSmall ? { ...b, small: [] } : b);

/** The small messages as a kept judgesSmall stage left them (it keeps each message in its place, and
 * may have put a reference in one): the later stages are held to leave these as they are. */
function smallAfter(small: readonly ChatMessage[], before: ChatRequest, after: ChatRequest): ChatMessage[] {
  const now = new Map<ChatMessage, ChatMessage>();
  before.messages.forEach((m, i) => after.messages[i] !== m && now.set(m, after.messages[i]!));
  return small.map((m) => now.get(m) ?? m);
}

/** The trace of a run that could not happen (the engine's worker failed or timed out): every stage
 * of the mode reverted "error", the counts the analysis' byte bound, the request as it came. */
export function failedTrace(mode: OptimizationMode, boundTokens: number, stages: readonly Stage[]): OptimizationTrace {
  const records = stages.filter((s) => MODE_RANK[s.from] <= MODE_RANK[mode]).map((s): StageRecord => ({
    name: s.name, applied: false, before_tokens: boundTokens, after_tokens: boundTokens, ms: 0, reverted_reason: "error",
  }));
  return { mode, original_tokens: boundTokens, final_tokens: boundTokens, stages: records };
}

/** Runs the stages the mode includes, in order, each on the previous one's kept result. */
export function optimizeRequest(req: ChatRequest, ctx: StageContext, stages: readonly Stage[]): Optimized {
  const mode = ctx.options.mode;
  const original = requestTokens(req);
  const trace: OptimizationTrace = { mode, original_tokens: original, final_tokens: original, stages: [] };
  const todo = stages.filter((s) => MODE_RANK[s.from] <= MODE_RANK[mode]);
  if (todo.length === 0) return { request: req, trace };
  // The original's side of the preserve gate, made when a stage first saves something.
  let baseline: Baseline | null = null;
  const baselineNow = (): Baseline => {
    const { fields, preserve } = ctx.options;
    const reference = fields.keep.length > 0 || fields.drop.length > 0 ? applyFields(req, ctx) : req;
    const small = new Set([...ctx.untouchable].filter((i) => messageTokens(req.messages[i]!) < SMALL_MESSAGE_TOKENS));
    return baselineOf(req, reference, preserve, keptIndexes(req, ctx.options), small);
  };
  let current = req;
  let tokens = original;
  for (const stage of todo) {
    const t0 = performance.now();
    let after: ChatRequest | null = null;
    let reason: RevertReason | undefined;
    let afterTokens = tokens;
    try {
      // A stage that judges small messages itself (Stage.judgesSmall) is kept only from do_not_compress ones.
      const sctx = stage.judgesSmall ? { ...ctx, untouchable: keptIndexes(current, ctx.options) } : ctx;
      after = stage.run(current, sctx);
      if (after) {
        afterTokens = requestTokens(after);
        if (noGain(stage.name, tokens, afterTokens)) reason = "no_gain";
        else if (!preserveHolds(gateFor(stage, (baseline ??= baselineNow())), current, after, DROPS_TURNS.has(stage.name)) || (stage.verify && !stage.verify(current, after, sctx))) reason = "preserve";
      }
    } catch {
      reason = "error";
    }
    const applied = after !== null && reason === undefined;
    const record: StageRecord = {
      name: stage.name, applied, before_tokens: tokens, after_tokens: afterTokens, ms: round3(performance.now() - t0),
    };
    if (reason) record.reverted_reason = reason;
    trace.stages.push(record);
    if (applied && after) {
      if (baseline) commitGate(baseline, DROPS_TURNS.has(stage.name));
      if (baseline && stage.judgesSmall) baseline.small = smallAfter(baseline.small, current, after);
      (current = after), (tokens = afterTokens);
    }
  }
  trace.final_tokens = tokens;
  return { request: current, trace };
}
