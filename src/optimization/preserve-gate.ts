// The preserve gate's check (docs/optimization.md "Gates"): the original's side, and a stage's result
// checked by what it changed (messages added or removed, by identity): the facts of the messages a
// stage left alone are read only when a removed message held a fact no added one holds.
import type { ChatMessage, ChatRequest } from "../canonical/chat.ts";
import { factsOf } from "./gates.ts";
import type { PreserveItem } from "./types.ts";

/** The original's side of the gate, made once per request. */
export interface Baseline {
  /** The request the stages start from, and what its facts are taken from (`fields` applied). */
  req: ChatRequest;
  reference: ChatRequest;
  /** The reference's facts, gathered on first need (shared by copies of the baseline). */
  lazy: { entities: Set<string> | null };
  fences: Set<string>;
  /** Literals and regex matches of `preserve` found in the original. */
  preserved: string[];
  /** Messages that must reach the provider as they are (role and text): do_not_compress ones. */
  kept: ChatMessage[];
  /** Small messages (under the size worth compressing): unchanged unless a stage drops turns. */
  small: ChatMessage[];
  /** The last kept request holds every fact and code block of the baseline, so a result is checked
   * on what it changed; false with `fields` (the reference is not the request) or once a stage
   * that drops turns was kept, and then a result is checked whole. */
  whole: boolean;
}

export function baselineOf(req: ChatRequest, reference: ChatRequest, preserve: readonly PreserveItem[], kept: ReadonlySet<number>, small: ReadonlySet<number>): Baseline {
  const fences = new Set<string>();
  for (const m of req.messages) for (const f of factsOf(m).fences) fences.add(f);
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
  return { req, reference, lazy: { entities: null }, fences, preserved, kept: pick(kept), small: pick(small), whole: reference === req };
}

const joined = (req: ChatRequest): string => req.messages.map((m) => factsOf(m).text).join("\u0000");
const keyOf = (m: ChatMessage): string => `${m.role}\u0000${factsOf(m).text}`;

function baselineEntities(b: Baseline): Set<string> {
  if (b.lazy.entities) return b.lazy.entities;
  const out = new Set<string>();
  for (const m of b.reference.messages) for (const e of factsOf(m).entities) out.add(e);
  return (b.lazy.entities = out);
}

/** Whether `result`, a stage's output from `current` (the last kept request), keeps what the
 * baseline holds. A stage that drops whole turns (history_window) is held to the preserve items,
 * the do_not_compress messages and unchanged code only. */
export function preserveHolds(b: Baseline, current: ChatRequest, result: ChatRequest, dropsTurns: boolean): boolean {
  // How many more times each message object is in the result than in `current`.
  const times = new Map<ChatMessage, number>();
  for (const m of current.messages) times.set(m, (times.get(m) ?? 0) - 1);
  for (const m of result.messages) times.set(m, (times.get(m) ?? 0) + 1);
  // No code block that was not in the original (messages left alone passed this before).
  for (const [m, k] of times) if (k > 0) for (const f of factsOf(m).fences) if (!b.fences.has(f)) return false;
  if (!dropsTurns && !(b.whole ? keepsChanged(b, times, result) : keepsAll(b, result))) return false;
  if (b.kept.length > 0 || (!dropsTurns && b.small.length > 0)) {
    const same = new Set(result.messages);
    let keys: Set<string> | null = null;
    const present = (m: ChatMessage): boolean => same.has(m) || (keys ??= new Set(result.messages.map(keyOf))).has(keyOf(m));
    if (!b.kept.every(present)) return false;
    if (!dropsTurns && !b.small.every(present)) return false;
  }
  if (b.preserved.length > 0) {
    const all = joined(result);
    if (!b.preserved.every((p) => all.includes(p))) return false;
  }
  return true;
}

/** `current` held every fact and code block of the baseline: one is lost only if a removed message
 * held it and neither an added message nor one the stage left alone holds it. */
function keepsChanged(b: Baseline, times: ReadonlyMap<ChatMessage, number>, result: ChatRequest): boolean {
  const added = new Set<string>();
  const addedFences = new Set<string>();
  for (const [m, k] of times) {
    if (k <= 0) continue;
    for (const e of factsOf(m).entities) added.add(e);
    for (const f of factsOf(m).fences) addedFences.add(f);
  }
  const lost: string[] = [];
  const lostFences: string[] = [];
  for (const [m, k] of times) {
    if (k >= 0) continue;
    for (const e of factsOf(m).entities) if (!added.has(e)) lost.push(e);
    for (const f of factsOf(m).fences) if (!addedFences.has(f) && b.fences.has(f)) lostFences.push(f);
  }
  if (lost.length === 0 && lostFences.length === 0) return true;
  const wanted = lost.length > 0 ? lost.filter((e) => baselineEntities(b).has(e)) : lost;
  if (wanted.length === 0 && lostFences.length === 0) return true;
  const rest = new Set<string>();
  const restFences = new Set<string>();
  for (const m of result.messages) {
    if ((times.get(m) ?? 0) > 0) continue;
    for (const e of factsOf(m).entities) rest.add(e);
    for (const f of factsOf(m).fences) restFences.add(f);
  }
  return wanted.every((e) => rest.has(e)) && lostFences.every((f) => restFences.has(f));
}

/** Every fact and code block of the baseline somewhere in the result. */
function keepsAll(b: Baseline, result: ChatRequest): boolean {
  const entities = new Set<string>();
  const fences = new Set<string>();
  for (const m of result.messages) {
    for (const e of factsOf(m).entities) entities.add(e);
    for (const f of factsOf(m).fences) fences.add(f);
  }
  for (const f of b.fences) if (!fences.has(f)) return false;
  for (const e of baselineEntities(b)) if (!entities.has(e)) return false;
  return true;
}

/** The stage was kept: after one that drops turns, results are checked whole. */
export function commitGate(b: Baseline, dropsTurns: boolean): void {
  if (dropsTurns) b.whole = false;
}
