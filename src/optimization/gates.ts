// The preserve gate's facts (docs/optimization.md "Gates"): per message, every distinct fact (numbers,
// ids, dates, e-mails, URLs, quoted strings) and fenced code block, one linear scan per message
// object; preserve-gate.ts holds the original's side and checks a stage's result against it.
import { messageText } from "../analysis/tokens.ts";
import type { ChatMessage } from "../canonical/chat.ts";

/** What one message's text holds that the gate checks, each part read on first use and memoised
 * per message object, so a message a stage passed on unchanged is never scanned again. */
class Facts {
  private e: string[] | null = null;
  private f: string[] | null = null;
  constructor(readonly text: string) {}
  get entities(): string[] {
    return (this.e ??= entitiesOf(this.text));
  }
  get fences(): string[] {
    return (this.f ??= fencesOf(this.text));
  }
}

const factsMemo = new WeakMap<ChatMessage, Facts>();

export function factsOf(m: ChatMessage): Facts {
  let f = factsMemo.get(m);
  if (!f) factsMemo.set(m, (f = new Facts(messageText(m))));
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
  // isPlain's walk, done on the way: a plain string is added as the slice it is, not rebuilt.
  let state = PLAIN | SPACE;
  for (let j = at + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 92) {
      state = plainStep(state, c);
      if (j + 1 < text.length) state = plainStep(state, text.charCodeAt(j + 1));
      j++;
    } else if (c === 10 || c === 13) return -1;
    else if (c === close) {
      if (j - at - 1 <= QUOTED_MAX && j > at + 1) {
        if (state === PLAIN && close === 34) out.add(text.slice(at, j + 1));
        else {
          const inner = collapse(text.slice(at + 1, j));
          if (inner) out.add(`"${inner}"`);
        }
      }
      return j;
    } else state = plainStep(state, c);
  }
  return -1;
}

// isPlain as a state machine: PLAIN while no whitespace but single inner spaces, SPACE after one.
const PLAIN = 1;
const SPACE = 2;
function plainStep(state: number, c: number): number {
  if (c === 32) return state & SPACE ? SPACE : state | SPACE;
  if ((c >= 9 && c <= 13) || c === 0xa0) return state & SPACE;
  return state & PLAIN;
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

