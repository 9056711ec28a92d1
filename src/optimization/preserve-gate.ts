// The preserve gate's bookkeeping (docs/optimization.md "Gates"): the original's facts, fences and
// protected messages, and per fact how many messages of the last kept request hold it, so a stage's
// result is checked by what it changed alone (messages added or removed by identity), never rescanned.
import type { ChatMessage, ChatRequest } from "../canonical/chat.ts";
import { factsOf } from "./gates.ts";
import type { PreserveItem } from "./types.ts";

/** How many messages of the last kept request hold each fact and fence; `missing` are the
 * baseline's with none (a `fields` reference can hold a fact the request does not). */
interface Live {
  entities: Map<string, number>;
  fences: Map<string, number>;
  missingEntities: Set<string>;
  missingFences: Set<string>;
}

/** The original's side of the gate, made once per request. */
export interface Baseline {
  entities: Set<string>;
  fences: Set<string>;
  /** Literals and regex matches of `preserve` found in the original. */
  preserved: string[];
  /** Messages that must reach the provider as they are (role and text): do_not_compress ones. */
  kept: ChatMessage[];
  /** Small messages (under the size worth compressing): unchanged unless a stage drops turns. */
  small: ChatMessage[];
  live: Live;
}

/** What a stage's result changes against the last kept request: per fact and fence, the number of
 * messages holding it gained (+) or lost (-). */
export interface GateDelta {
  entities: Map<string, number>;
  fences: Map<string, number>;
}

const bump = (map: Map<string, number>, key: string, by: number): void => {
  const n = (map.get(key) ?? 0) + by;
  if (n === 0) map.delete(key);
  else map.set(key, n);
};

/** `req` is the request the stages start from: the live counts are its. */
export function baselineOf(req: ChatRequest, reference: ChatRequest, preserve: readonly PreserveItem[], kept: ReadonlySet<number>, small: ReadonlySet<number>): Baseline {
  const entities = new Set<string>();
  const live: Live = { entities: new Map(), fences: new Map(), missingEntities: new Set(), missingFences: new Set() };
  for (const m of reference.messages) for (const e of factsOf(m).entities) entities.add(e);
  for (const m of req.messages) {
    const f = factsOf(m);
    for (const e of f.entities) bump(live.entities, e, 1);
    for (const x of f.fences) bump(live.fences, x, 1);
  }
  for (const e of entities) if (!live.entities.has(e)) live.missingEntities.add(e);
  const preserved: string[] = [];
  if (preserve.length > 0) {
    const all = joined(req);
    for (const item of preserve) {
      if (typeof item === "string") {
        if (all.includes(item)) preserved.push(item);
        continue;
      }
      let found = 0;
      for (const match of all.matchAll(new RegExp(item.regex, "gu"))) {
        if (match[0] && ++found <= 1000) preserved.push(match[0]);
        if (found > 1000) break;
      }
    }
  }
  const pick = (set: ReadonlySet<number>) => [...set].flatMap((i) => (req.messages[i] ? [req.messages[i]!] : []));
  return { entities, fences: new Set(live.fences.keys()), preserved, kept: pick(kept), small: pick(small), live };
}

const joined = (req: ChatRequest): string => req.messages.map((m) => factsOf(m).text).join("\u0000");
const keyOf = (m: ChatMessage): string => `${m.role}\u0000${factsOf(m).text}`;

/** The delta when `result` (a stage's output from `current`, the last kept request) keeps what the
 * baseline holds, else null. A stage that drops whole turns (history_window) is held to the
 * preserve items, the do_not_compress messages and unchanged code only. */
export function preserveHolds(b: Baseline, current: ChatRequest, result: ChatRequest, dropsTurns: boolean): GateDelta | null {
  const times = new Map<ChatMessage, number>();
  for (const m of current.messages) times.set(m, (times.get(m) ?? 0) - 1);
  for (const m of result.messages) times.set(m, (times.get(m) ?? 0) + 1);
  const delta: GateDelta = { entities: new Map(), fences: new Map() };
  for (const [m, k] of times) {
    if (k === 0) continue;
    const f = factsOf(m);
    for (const e of f.entities) bump(delta.entities, e, k);
    for (const x of f.fences) {
      // No code block that was not in the original (unchanged messages passed this before).
      if (k > 0 && !b.fences.has(x)) return null;
      bump(delta.fences, x, k);
    }
  }
  if (!dropsTurns && !(keepsAll(b.entities, b.live.entities, b.live.missingEntities, delta.entities) && keepsAll(b.fences, b.live.fences, b.live.missingFences, delta.fences))) return null;
  if (b.kept.length > 0 || (!dropsTurns && b.small.length > 0)) {
    const same = new Set(result.messages);
    let keys: Set<string> | null = null;
    const present = (m: ChatMessage): boolean => same.has(m) || (keys ??= new Set(result.messages.map(keyOf))).has(keyOf(m));
    if (!b.kept.every(present)) return null;
    if (!dropsTurns && !b.small.every(present)) return null;
  }
  if (b.preserved.length > 0) {
    const all = joined(result);
    if (!b.preserved.every((p) => all.includes(p))) return null;
  }
  return delta;
}

/** Every key of `wanted` is held by some message after the delta. */
function keepsAll(wanted: ReadonlySet<string>, live: ReadonlyMap<string, number>, missing: ReadonlySet<string>, delta: ReadonlyMap<string, number>): boolean {
  for (const [key, k] of delta) if (k < 0 && wanted.has(key) && (live.get(key) ?? 0) + k <= 0) return false;
  for (const key of missing) if ((delta.get(key) ?? 0) <= 0) return false;
  return true;
}

/** The stage was kept: its result becomes the request the live counts describe. */
export function commitGate(b: Baseline, delta: GateDelta): void {
  const apply = (wanted: ReadonlySet<string>, live: Map<string, number>, missing: Set<string>, changes: ReadonlyMap<string, number>): void => {
    for (const [key, k] of changes) {
      bump(live, key, k);
      if (!wanted.has(key)) continue;
      if (live.has(key)) missing.delete(key);
      else missing.add(key);
    }
  };
  apply(b.entities, b.live.entities, b.live.missingEntities, delta.entities);
  apply(b.fences, b.live.fences, b.live.missingFences, delta.fences);
}
