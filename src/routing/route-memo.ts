// Memoised scoring (docs/routing.md "Score"): the same eligible models, profile, task, project and
// credentials read the same qualities and health factors until feedback or a breaker changes (their
// epochs are in the key); only the request's cost and the latencies are scored again. LRU per gw.
import type { CatalogModel } from "./catalog-types.ts";
import type { FeedbackQuality } from "./feedback-quality.ts";
import type { ProviderHealth } from "./health.ts";
import { prepareScoring, rankPrepared, scoreModels, type Decision, type Prepared, type ScoreInput } from "./score.ts";

/** Most keys kept: past it the least recently used goes. */
export const MEMO_KEYS = 1_000;

/** Whose request is scored: feedback is read per project, health per project credential. */
export interface ScoreScope {
  test: boolean;
  projectId: string;
  /** The project's own credential for a provider (BYOK breakers), or undefined for the operator's. */
  credentialOf(provider: string): string | undefined;
}

/** `hits` reused the qualities and health factors, `whole` of them the whole ranking too. */
export interface MemoStats { hits: number; whole: number; misses: number; size: number }

/** The last ranking is kept with what it was made for: the same sizes and no new outcome reuse it. */
interface Entry {
  prepared: Prepared;
  inputTokens: number;
  outputTokens: number;
  epoch: number;
  decision: Decision;
}

class Memo {
  readonly entries = new Map<string, Entry>();
  /** Catalog models numbered as first seen: the key names the eligible set by these numbers. */
  readonly numbers = new Map<CatalogModel, number>();
  hits = 0;
  whole = 0;
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

/** Everything prepareScoring's answer depends on. */
function keyOf(memo: Memo, health: ProviderHealth, feedback: FeedbackQuality, eligible: readonly CatalogModel[], input: ScoreInput, scope: ScoreScope): string {
  let key = `${input.profile}|${input.mode}|${input.minQuality}|${input.task}|${input.workload}|${input.complexity}` +
    `|${scope.test}|${scope.projectId}|${health.scoreEpoch()}|${feedback.epoch()}|`;
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

/** scoreModels over `eligible` with health and feedback as the route stage reads them. The answer
 * is the one scoreUnmemoised gives (test/routing/route-memo.test.ts); it is shared: never changed. */
export function scoreEligible(health: ProviderHealth, feedback: FeedbackQuality, eligible: readonly CatalogModel[], input: ScoreInput, scope: ScoreScope): Decision {
  const memo = memoOf(health);
  const key = keyOf(memo, health, feedback, eligible, input, scope);
  const epoch = health.epoch();
  const latencyOf = (m: CatalogModel) => health.expectedLatencyMs(m.provider, m.id);
  const entry = memo.entries.get(key);
  if (!entry) {
    memo.misses++;
    const prepared = prepareScoring([...eligible], input, healthOf(health, scope), qualityOf(feedback, scope));
    const decision = rankPrepared(prepared, input, latencyOf);
    if (memo.entries.size >= MEMO_KEYS) memo.entries.delete(memo.entries.keys().next().value ?? "");
    memo.entries.set(key, { prepared, inputTokens: input.inputTokens, outputTokens: input.outputTokens, epoch, decision });
    return decision;
  }
  memo.entries.delete(key);
  memo.entries.set(key, entry);
  memo.hits++;
  if (entry.epoch === epoch && entry.inputTokens === input.inputTokens && entry.outputTokens === input.outputTokens) {
    memo.whole++;
    return entry.decision;
  }
  entry.decision = rankPrepared(entry.prepared, input, latencyOf);
  entry.inputTokens = input.inputTokens;
  entry.outputTokens = input.outputTokens;
  entry.epoch = epoch;
  return entry.decision;
}

const healthOf = (health: ProviderHealth, scope: ScoreScope) => (m: CatalogModel) =>
  (scope.test ? 1 : health.score(m.provider, m.id, scope.credentialOf(m.provider)));
const qualityOf = (feedback: FeedbackQuality, scope: ScoreScope) => (m: CatalogModel, t: Parameters<FeedbackQuality["quality"]>[1]) =>
  feedback.quality(m, t, scope.test, scope.projectId);

export function scoreUnmemoised(health: ProviderHealth, feedback: FeedbackQuality, eligible: readonly CatalogModel[], input: ScoreInput, scope: ScoreScope): Decision {
  return scoreModels(eligible, input, (m) => health.expectedLatencyMs(m.provider, m.id), healthOf(health, scope), qualityOf(feedback, scope));
}

/** Counts since start (the bench and the memo test read them). */
export function memoStats(health: ProviderHealth): MemoStats {
  const memo = memoOf(health);
  return { hits: memo.hits, whole: memo.whole, misses: memo.misses, size: memo.entries.size };
}
