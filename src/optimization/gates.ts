// The preserve gate (docs/optimization.md "Gates"): what the original says must still be in a stage's
// result: `preserve` items, every distinct fact (numbers, ids, dates, e-mails, URLs, quoted strings),
// fenced code byte for byte, and the do_not_compress messages. One linear scan per changed message.
import { messageText } from "../analysis/tokens.ts";
import type { ChatMessage, ChatRequest } from "../canonical/chat.ts";
import type { PreserveItem } from "./types.ts";

/** What one message's text holds that the gate checks; memoised per message object, so a message a
 * stage passed on unchanged is never scanned again. */
interface Facts {
  text: string;
  entities: string[];
  fences: string[];
}

const factsMemo = new WeakMap<ChatMessage, Facts>();

export function factsOf(m: ChatMessage): Facts {
  let f = factsMemo.get(m);
  if (!f) {
    const text = messageText(m);
    f = { text, entities: entitiesOf(text), fences: fencesOf(text) };
    factsMemo.set(m, f);
  }
  return f;
}

// Character classes by code unit: 1 breaks a fact token, 2 is trimmed from its ends.
const BREAK = new Uint8Array(128);
for (const c of " \t\n\r\f\v\"'`,;()[]{}<>|\\") BREAK[c.charCodeAt(0)] = 1;
for (const c of ".:=*?!-/#") BREAK[c.charCodeAt(0)] = 2;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const breaks = (c: number): boolean => (c < 128 ? BREAK[c] === 1 : c === 0xa0 || c === 0x2028 || c === 0x201c || c === 0x201d);

/** The facts of a text, each once: tokens holding a digit (numbers, ids, dates, times, versions),
 * an "@" (e-mails) or "://" (URLs), trimmed of trailing punctuation; and quoted strings on one
 * line with their inner whitespace collapsed. The kinds of the cache's literal guard
 * (cache/semantic-guard.ts), extracted in one pass without its 24-per-kind cap. */
export function entitiesOf(text: string): string[] {
  const out = new Set<string>();
  const n = text.length;
  let start = -1;
  let signal = false;
  // A quote that closes a string never opens the next one: in `"a":"x"`, `":"` is no fact.
  let closedAt = -1;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 32;
    if (!breaks(c)) {
      if (start < 0) (start = i), (signal = false);
      if (isDigit(c) || c === 64 || (c === 58 && text.startsWith("//", i + 1))) signal = true;
      continue;
    }
    if (start >= 0 && signal) addToken(out, text, start, i);
    start = -1;
    if ((c === 34 || c === 0x201c) && i !== closedAt) closedAt = quoted(out, text, i, c === 34 ? 34 : 0x201d);
  }
  return [...out];
}

function addToken(out: Set<string>, text: string, from: number, to: number): void {
  while (from < to && BREAK[text.charCodeAt(from)] === 2) from++;
  while (to > from && BREAK[text.charCodeAt(to - 1)] === 2) to--;
  if (to > from) out.add(text.slice(from, to));
}

const QUOTED_MAX = 200;

/** A quoted string opening at `at`: a fact when it closes on the same line within QUOTED_MAX units
 * (backslash escapes skipped). Returns the closing quote's index, however far (so a long string
 * does not put the pairing after it out of step), or -1; scanning resumes after the open quote
 * either way, so the text inside is still read for tokens. Each quote's scan ends at the next
 * quote or line end, so the whole text is read at most twice. */
function quoted(out: Set<string>, text: string, at: number, close: number): number {
  for (let j = at + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 92) j++;
    else if (c === 10 || c === 13) return -1;
    else if (c === close) {
      if (j - at - 1 <= QUOTED_MAX) {
        const inner = collapse(text.slice(at + 1, j));
        if (inner) out.add(`"${inner}"`);
      }
      return j;
    }
  }
  return -1;
}

/** Runs of whitespace as one space, trimmed: "a  b" and "a b" quote the same words. */
function collapse(s: string): string {
  if (isPlain(s)) return s;
  let out = "";
  let space = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13) || c === 0xa0) space = out.length > 0;
    else {
      if (space) out += " ";
      space = false;
      out += s[i];
    }
  }
  return out;
}

/** No whitespace but single inner spaces: the usual quoted string, taken as it is. */
function isPlain(s: string): boolean {
  let space = true; // a leading space is not plain
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 32) {
      if (space) return false;
      space = true;
    } else if ((c >= 9 && c <= 13) || c === 0xa0) return false;
    else space = false;
  }
  return !space || s.length === 0;
}

/** Fenced code blocks (``` or ~~~ lines to the matching closing line), each whole. A ```json
 * fence is data, not code: json_minify may minify it, its verify proving the value unchanged. */
export function fencesOf(text: string): string[] {
  const out: string[] = [];
  let at = 0;
  while (at < text.length) {
    const open = nextFence(text, at);
    if (!open) break;
    const close = nextFence(text, open.end + 1, open.mark);
    const end = close ? close.end : text.length;
    if (text.slice(open.start, open.end).trim().slice(3).trim().toLowerCase() !== "json") out.push(text.slice(open.start, end));
    at = end + 1;
  }
  return out;
}

/** The next line (from `from`) that opens or closes a fence: up to 3 spaces, then ``` or ~~~
 * (`mark` when closing). */
export function nextFence(text: string, from: number, mark?: string): { start: number; end: number; mark: string } | null {
  for (let i = from; i < text.length; ) {
    const eol = text.indexOf("\n", i);
    const lineEnd = eol < 0 ? text.length : eol;
    let j = i;
    while (j < lineEnd && j - i < 3 && text.charCodeAt(j) === 32) j++;
    const m = text.startsWith("```", j) ? "```" : text.startsWith("~~~", j) ? "~~~" : null;
    if (m && (mark === undefined || m === mark)) return { start: i, end: lineEnd, mark: m };
    i = lineEnd + 1;
  }
  return null;
}

/** The original's side of the gate, made once per request. */
export interface Baseline {
  entities: Set<string>;
  fences: Set<string>;
  /** Literals and regex matches of `preserve` found in the original. */
  preserved: string[];
  /** Messages (role and text) that must reach the provider as they are: do_not_compress ones. */
  kept: string[];
  /** Small messages (under the size worth compressing): unchanged unless a stage drops turns. */
  small: string[];
}

const keyOf = (m: ChatMessage): string => `${m.role}\u0000${factsOf(m).text}`;

export function baselineOf(req: ChatRequest, reference: ChatRequest, preserve: readonly PreserveItem[], kept: ReadonlySet<number>, small: ReadonlySet<number>): Baseline {
  const entities = new Set<string>();
  const fences = new Set<string>();
  for (const m of reference.messages) for (const e of factsOf(m).entities) entities.add(e);
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
  const pick = (set: ReadonlySet<number>) => [...set].flatMap((i) => (req.messages[i] ? [keyOf(req.messages[i]!)] : []));
  return { entities, fences, preserved, kept: pick(kept), small: pick(small) };
}

const joined = (req: ChatRequest): string => req.messages.map((m) => factsOf(m).text).join("\u0000");

/** Whether `result` keeps what the baseline holds. A stage that drops whole turns (history_window)
 * is held to the preserve items, the do_not_compress messages and unchanged code only. */
export function preserveHolds(b: Baseline, result: ChatRequest, dropsTurns: boolean): boolean {
  const resultFences = new Set<string>();
  for (const m of result.messages) for (const f of factsOf(m).fences) resultFences.add(f);
  for (const f of resultFences) if (!b.fences.has(f)) return false;
  if (!dropsTurns) {
    for (const f of b.fences) if (!resultFences.has(f)) return false;
    const entities = new Set<string>();
    for (const m of result.messages) for (const e of factsOf(m).entities) entities.add(e);
    for (const e of b.entities) if (!entities.has(e)) return false;
  }
  if (b.kept.length > 0 || (!dropsTurns && b.small.length > 0)) {
    const keys = new Set(result.messages.map(keyOf));
    if (!b.kept.every((k) => keys.has(k))) return false;
    if (!dropsTurns && !b.small.every((k) => keys.has(k))) return false;
  }
  if (b.preserved.length > 0) {
    const all = joined(result);
    if (!b.preserved.every((p) => all.includes(p))) return false;
  }
  return true;
}
