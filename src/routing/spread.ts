// gw-auto's spread over equivalent models (docs/routing.md "Score"): of the models equivalent to the
// best (score.ts equivalentsOf), a hash of the session id or of the request's last message picks the one
// tried first, so one model does not take every request because it wins every near-tie by a hair.
import type { ChatMessage } from "../canonical/chat.ts";
import { diversify, type Scored } from "./score.ts";

const FNV_OFFSET = 0x811c9dc5;
const step = (h: number, unit: number): number => Math.imul(h ^ unit, 0x01000193);

/** A final mix, so that keys differing only in their last characters spread evenly. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** At most this many characters are read from each end of the text a request is keyed by. */
const KEY_ENDS = 128;

function hashEnds(h: number, text: string): number {
  h = step(h, text.length);
  const n = text.length;
  if (n <= 2 * KEY_ENDS) {
    for (let i = 0; i < n; i++) h = step(h, text.charCodeAt(i));
    return h;
  }
  for (let i = 0; i < KEY_ENDS; i++) h = step(h, text.charCodeAt(i));
  for (let i = n - KEY_ENDS; i < n; i++) h = step(h, text.charCodeAt(i));
  return h;
}

/** A session's key: every turn of a new session starts on the same model (then it sticks). */
export function sessionSpreadHash(id: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < id.length; i++) h = step(h, id.charCodeAt(i));
  return mix(h);
}

/** A request's key without a session: the number of messages and the last user message (its length
 * and at most 128 characters at each end of each text part). The same request always goes to the
 * same model, so test mode's answers stay deterministic; different requests spread. Bounded. */
export function requestSpreadHash(messages: readonly ChatMessage[]): number {
  let h = step(FNV_OFFSET, messages.length);
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "user") continue;
    const c = m.content;
    if (typeof c === "string") h = hashEnds(h, c);
    else if (Array.isArray(c)) {
      for (let j = 0; j < c.length && j < 16; j++) {
        const text = c[j]!.text;
        if (typeof text === "string") h = hashEnds(h, text);
      }
    }
    break;
  }
  return mix(h);
}

/** The position in `ranked` this key's request starts with: one of the equivalents. */
export const spreadPick = (equivalents: readonly number[], hash: number): number =>
  equivalents.length < 2 ? (equivalents[0] ?? 0) : equivalents[hash % equivalents.length]!;

/** `ranked` with the row at `at` first; the rows that meet the bar are ordered again so that each
 * next attempt still prefers a provider not tried yet. The input is not changed. */
export function startWith(ranked: readonly Scored[], at: number): Scored[] {
  if (at <= 0) return [...ranked];
  let meeting = 0;
  while (meeting < ranked.length && ranked[meeting]!.meetsQuality) meeting++;
  const head = [ranked[at]!];
  for (let i = 0; i < meeting; i++) if (i !== at) head.push(ranked[i]!);
  return [...diversify(head), ...ranked.slice(meeting)];
}
