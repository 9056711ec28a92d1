// Memoised scoring (docs/routing.md "Score"): the same eligible models, scoring input, project and
// credentials rank the same way until provider health or feedback changes (their epochs are in the
// key), so a repeated request is not scored again. A bounded LRU per ProviderHealth (one per gw).
import type { CatalogModel } from "./catalog-types.ts";
import type { FeedbackQuality } from "./feedback-quality.ts";
import type { ProviderHealth } from "./health.ts";
import { scoreModels, type Decision, type ScoreInput } from "./score.ts";

/** Most decisions kept: past it the least recently used goes. */
export const MEMO_KEYS = 1_000;

/** Whose request is scored: feedback is read per project, health per project credential. */
export interface ScoreScope {
  test: boolean;
  projectId: string;
  /** The project's own credential for a provider (BYOK breakers), or undefined for the operator's. */
  credentialOf(provider: string): string | undefined;
}

export interface MemoStats { hits: number; misses: number; size: number }

class Memo {
  readonly decisions = new Map<string, Decision>();
  /** Catalog models numbered as first seen: the key names the eligible set by these numbers. */
  readonly numbers = new Map<CatalogModel, number>();
  hits = 0;
  misses = 0;

  numberOf(m: CatalogModel): number {
    let n = this.numbers.get(m);
    if (n === undefined) this.numbers.set(m, (n = this.numbers.size));
    return n;
  }
}

const memos = new WeakMap<ProviderHealth, Memo>();

function memoOf(health: ProviderHealth): Memo {
  let memo = memos.get(health);
  if (!memo) memos.set(health, (memo = new Memo()));
  return memo;
}

/** Everything scoreModels' answer depends on. Shared by reference: callers must not change it. */
function keyOf(memo: Memo, health: ProviderHealth, feedback: FeedbackQuality, eligible: readonly CatalogModel[], input: ScoreInput, scope: ScoreScope): string {
  let key = `${input.profile}|${input.mode}|${input.minQuality}|${input.task}|${input.workload}|${input.complexity}|${input.inputTokens}|${input.outputTokens}` +
    `|${scope.test}|${scope.projectId}|${health.epoch()}|${feedback.epoch()}|`;
  for (const m of eligible) key += `${memo.numberOf(m)},`;
  if (scope.test) return key;
  // Health is read per credential: a project's own key has its own breakers.
  let last = "";
  for (const m of eligible) {
    if (m.provider === last) continue;
    last = m.provider;
    key += `|${last}=${scope.credentialOf(last) ?? ""}`;
  }
  return key;
}

/** scoreModels over `eligible` with health and feedback as the route stage reads them, reused while
 * its key holds. The answer is the one scoreUnmemoised gives (test/routing/route-memo.test.ts). */
export function scoreEligible(health: ProviderHealth, feedback: FeedbackQuality, eligible: readonly CatalogModel[], input: ScoreInput, scope: ScoreScope): Decision {
  const memo = memoOf(health);
  const key = keyOf(memo, health, feedback, eligible, input, scope);
  const hit = memo.decisions.get(key);
  if (hit) {
    memo.hits++;
    memo.decisions.delete(key);
    memo.decisions.set(key, hit);
    return hit;
  }
  memo.misses++;
  const decision = scoreUnmemoised(health, feedback, eligible, input, scope);
  if (memo.decisions.size >= MEMO_KEYS) memo.decisions.delete(memo.decisions.keys().next().value ?? "");
  memo.decisions.set(key, decision);
  return decision;
}

export function scoreUnmemoised(health: ProviderHealth, feedback: FeedbackQuality, eligible: readonly CatalogModel[], input: ScoreInput, scope: ScoreScope): Decision {
  return scoreModels(
    eligible, input,
    (m) => health.expectedLatencyMs(m.provider, m.id),
    (m) => (scope.test ? 1 : health.score(m.provider, m.id, scope.credentialOf(m.provider))),
    (m, t) => feedback.quality(m, t, scope.test, scope.projectId),
  );
}

/** Hits and misses since start (the bench and the memo test read them). */
export function memoStats(health: ProviderHealth): MemoStats {
  const memo = memoOf(health);
  return { hits: memo.hits, misses: memo.misses, size: memo.decisions.size };
}
