// The preserve gate's facts (docs/optimization.md "Gates"): per message, every distinct fact (numbers,
// ids, dates, e-mails, URLs, quoted strings) and fenced code block, one linear scan per message
// object; preserve-gate.ts holds the original's side and checks a stage's result against it.
import { messageText } from "../analysis/tokens.ts";
import type { ChatMessage } from "../canonical/chat.ts";
import { Distinct, PRIME, SEED } from "./lib/distinct.ts";

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

/** The facts of a text, each once: tokens holding a digit (numbers, ids, dates, times, versions),
 * an "@" (e-mails) or "://" (URLs), trimmed of trailing punctuation; and quoted strings on one
 * line with their inner whitespace collapsed. The kinds of the cache's literal guard
 * (cache/semantic-guard.ts), extracted in one pass without its 24-per-kind cap. One charCode loop
 * with no calls per character; nothing is allocated until a fact is found. */
export function entitiesOf(text: string): string[] {
  let out: Distinct | null = null;
  const n = text.length;
  let start = -1;
  let signal = false;
  // A quote that closes a string never opens the next one: in `"a":"x"`, `":"` is no fact.
  let closedAt = -1;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 32;
    if (c < 128 ? BREAK[c] !== 1 : c !== 0xa0 && c !== 0x2028 && c !== 0x201c && c !== 0x201d) {
      if (start < 0) (start = i), (signal = false);
      if (!signal && ((c >= 48 && c <= 57) || c === 64 || (c === 58 && text.charCodeAt(i + 1) === 47 && text.charCodeAt(i + 2) === 47))) signal = true;
      continue;
    }
    if (start >= 0 && signal) {
      let from = start;
      let to = i;
      while (from < to && BREAK[text.charCodeAt(from)] === 2) from++;
      while (to > from && BREAK[text.charCodeAt(to - 1)] === 2) to--;
      if (to > from) (out ??= new Distinct()).addRange(text, from, to);
    }
    start = -1;
    if ((c === 34 || c === 0x201c) && i !== closedAt) {
      const close = c === 34 ? 34 : 0x201d;
      // A quoted string: a fact when it closes on the same line within QUOTED_MAX units (backslash
      // escapes skipped). closedAt is the closing quote however far (so a long string does not put
      // the pairing after it out of step), or -1; scanning resumes after the open quote either
      // way, so the text inside is still read for tokens. Each quote's scan ends at the next quote
      // or line end, so the whole text is read at most twice. PLAIN while no whitespace but single
      // inner spaces (SPACE after one): a plain string is added as the slice it is.
      let state = PLAIN | SPACE;
      let h = Math.imul(SEED ^ 34, PRIME);
      closedAt = -1;
      for (let j = i + 1; j < n; j++) {
        let d = text.charCodeAt(j);
        if (d === 10 || d === 13) break;
        if (d === close) {
          if (j - i - 1 <= QUOTED_MAX && j > i + 1) {
            if (state === PLAIN && close === 34) (out ??= new Distinct()).addHashed(text, i, j + 1, Math.imul(h ^ 34, PRIME));
            else {
              const inner = collapse(text.slice(i + 1, j));
              if (inner) (out ??= new Distinct()).add(`"${inner}"`);
            }
          }
          closedAt = j;
          break;
        }
        if (d === 92) {
          state &= PLAIN;
          h = Math.imul(h ^ 92, PRIME);
          if (j + 1 >= n) continue;
          d = text.charCodeAt(++j);
        }
        h = Math.imul(h ^ d, PRIME);
        if (d === 32) state = state & SPACE ? SPACE : state | SPACE;
        else if ((d >= 9 && d <= 13) || d === 0xa0) state &= SPACE;
        else state &= PLAIN;
      }
    }
  }
  return out ? out.list : [];
}

const QUOTED_MAX = 200;
const PLAIN = 1;
const SPACE = 2;

/** Runs of whitespace as one space, trimmed: "a  b" and "a b" quote the same words. */
function collapse(s: string): string {
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

