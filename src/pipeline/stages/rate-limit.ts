// Stage rate_limit: admits the request against the project's and key's requests and tokens per
// minute on an estimate corrected at record, or refuses 429 with Retry-After (docs/rate-limits.md).
// Writes rateLimitHeaders (x-ratelimit-*, sent by gw-object.ts).
import { expectedOutputTokens } from "../../analysis/analyzer.ts";
import { countMessageTokens, countTextsTokens } from "../../analysis/tokens.ts";
import type { Decision, TokenEstimate } from "../../billing/rate-limit.ts";
import { usedTokens } from "../../billing/rate-limit.ts";
import { SharedRateLimiter } from "../../billing/rate-limit-shared.ts";
import { formatDuration, retryAfterSeconds } from "../../billing/rate-limit-headers.ts";
import { GwError } from "../../errors/gw-error.ts";
import type { Deps } from "../deps.ts";
import { prefetchSharedAnswer } from "./cache-lookup.ts";
import type { EmbedState } from "../embed/embed-state.ts";
import { need, type RequestState } from "../state.ts";

/** The runner skips the stage (no span) for a project with no `rate_limits` in its policy. */
export const rateLimitApplies = (_deps: Deps, state: RequestState): boolean => state.auth.rules.rateLimits !== null;

/** Chat and responses: input bound from analysis plus max_tokens, or the task's expected output. */
export function rateLimit(deps: Deps, state: RequestState): void | Promise<void> {
  const req = need(state, "request");
  const output = req.max_completion_tokens ?? req.max_tokens ?? expectedOutputTokens(state.analysis?.task ?? "chat");
  // Multi-instance: the exact-cache read rides the limit's Redis round trip (used only if admitted).
  if (deps.shared !== null) prefetchSharedAnswer(deps, state);
  return admit(deps, state, { bound: state.inputTokens + output, exact: () => countMessageTokens(req.messages) + output });
}

/** Embeddings have no output: their texts' byte length bounds their tokens. */
export function rateLimitEmbeddings(deps: Deps, state: EmbedState): void | Promise<void> {
  const input = state.embed.input;
  let bound = 0;
  for (const text of input) bound += Buffer.byteLength(text);
  return admit(deps, state, { bound, exact: () => countTextsTokens(input) });
}

/** Corrects the admission estimate with the usage. Already called for every request through
 * deps.requestListeners (record stage); calling it again is harmless (idempotent). */
export function settleTokens(deps: Deps, state: RequestState): void {
  const usage = state.usage;
  deps.rateLimits.settle(state.requestId, usedTokens(state.cache?.result === "hit", usage?.prompt_tokens ?? 0, usage?.completion_tokens ?? 0));
}

/** Single-node: one synchronous decision. Multi-instance: a promise, the decision made on Redis
 * (or, while Redis fails, by the fallback: billing/rate-limit-shared.ts). */
function admit(deps: Deps, state: RequestState, estimate: TokenEstimate): void | Promise<void> {
  const levels = state.auth.rules.rateLimits?.levels;
  if (!levels) return;
  const limiter = deps.rateLimits;
  if (deps.shared !== null && limiter instanceof SharedRateLimiter) {
    return limiter.admitShared(state.requestId, levels, estimate).then((decision) => {
      if (decision === null) throw sharedUnavailable();
      apply(state, decision);
    });
  }
  apply(state, limiter.admit(state.requestId, levels, estimate));
}

function apply(state: RequestState, decision: Decision): void {
  // x-ratelimit-* for the response, successes and refusals alike.
  state.rateLimitHeaders = decision.headers;
  if (!decision.ok) throw refusal(decision);
}

/** GW_REDIS_FAILURE=closed while Redis cannot be reached: no limit can be checked, none is guessed. */
const sharedUnavailable = (): GwError =>
  new GwError("rate_limited", "Rate limits cannot be checked right now (the shared rate-limit store is unreachable); retry in a second.", { retryAfter: 1 });

function refusal(d: Extract<Decision, { ok: false }>): GwError {
  const { rpm, tpm } = d.level.limits;
  const setting = d.level.name === "key" ? "rate_limits.per_key" : "rate_limits";
  if (d.retryAfterMs === null) {
    return new GwError("rate_limited", `This request needs up to ${d.estimate} tokens (input plus its output bound), more than the ${d.level.name} limit of ${tpm} tokens per minute (${setting}.tpm); lower max_tokens or shorten the input.`);
  }
  const what = d.dimension === "rpm" ? `${rpm} requests per minute (${setting}.rpm)` : `${tpm} tokens per minute (${setting}.tpm; this request needs up to ${d.estimate})`;
  return new GwError("rate_limited", `Rate limit reached: the ${d.level.name} limit of ${what}. Retry in ${formatDuration(d.retryAfterMs)}.`, {
    retryAfter: retryAfterSeconds(d.retryAfterMs),
  });
}
