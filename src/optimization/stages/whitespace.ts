// Stage whitespace (safe+; docs/optimization.md "whitespace"): runs of spaces, tabs and no-break
// spaces inside a line become one space, trailing ones go, runs of blank lines become one; never inside fenced code,
// <pre>, inline code, an indented line (4+ spaces or a tab), or a line holding a JSON document.
import type { ChatMessage, ChatRequest, ContentPart } from "../../canonical/chat.ts";
import { nextFence } from "../gates.ts";
import { jsonSpans } from "../json-text.ts";
import type { Stage } from "../types.ts";

/** Space, tab and the no-break space (U+00A0, from web pages, word processors and French typography):
 * a model reads a no-break space as a space, and o200k often spends a token of its own on one. */
const isBlank = (c: number): boolean => c === 32 || c === 9 || c === 0xa0;

/** A JSON text's remaining whitespace is inside its strings: values, left alone. */
function looksJson(text: string): boolean {
  let i = 0;
  while (i < text.length && (isBlank(text.charCodeAt(i)) || text.charCodeAt(i) === 10 || text.charCodeAt(i) === 13)) i++;
  const c = text.charCodeAt(i);
  return c === 123 || c === 91;
}

/** One line (without its "\n") with interior runs collapsed and trailing blanks cut; its leading
 * indentation, inline code and a final "\r" as they were. */
function collapseLine(line: string): string {
  let end = line.length;
  const cr = end > 0 && line.charCodeAt(end - 1) === 13;
  if (cr) end--;
  while (end > 0 && isBlank(line.charCodeAt(end - 1))) end--;
  let i = 0;
  while (i < end && isBlank(line.charCodeAt(i))) i++;
  let out = "";
  let from = 0;
  let code = false;
  for (; i < end; i++) {
    const c = line.charCodeAt(i);
    if (c === 96) code = !code;
    if (code || !isBlank(c)) continue;
    let j = i;
    while (j < end && isBlank(line.charCodeAt(j))) j++;
    if (j - i > 1 || c !== 32) (out += `${line.slice(from, i)} `), (from = j);
    i = j - 1;
  }
  out += line.slice(from, end);
  return cr ? `${out}\r` : out;
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** The column where the text of a numbered or bulleted item starts ("7.1   Customer", "(a)  The",
 * "-   item"), or -1. A hard-wrapped item (a PDF's clause, a mail's list) goes on in lines indented
 * to that column: in Markdown too these continue the item's paragraph, they are not code. */
function hangingIndent(line: string): number {
  let i = 0;
  while (i < line.length && line.charCodeAt(i) === 32) i++;
  if (i > 3) return -1;
  const c = line.charCodeAt(i);
  if (c === 45 || c === 42 || c === 43 || c === 0x2022) i++;
  else {
    if (c === 40) i++;
    const from = i;
    while (i < line.length && i - from < 9 && (isDigit(line.charCodeAt(i)) || line.charCodeAt(i) === 46)) i++;
    const letter = (line.charCodeAt(i) | 32) >= 97 && (line.charCodeAt(i) | 32) <= 122;
    if (i === from && letter && (line[i + 1] === ")" || line[i + 1] === ".")) i += 2;
    else if (i === from || !isDigit(line.charCodeAt(from))) return -1;
    else if (line.charCodeAt(i) === 41) i++;
  }
  if (line.charCodeAt(i) !== 32) return -1;
  while (i < line.length && line.charCodeAt(i) === 32) i++;
  return i < line.length ? i : -1;
}

/** Hard wrapping leaves full lines: a short one, or one ending with ":", introduces what follows
 * (a command, code) and gets no continuation. */
const WRAPPED_LINE = 60;
const wrapped = (line: string): boolean => line.length >= WRAPPED_LINE && !line.trimEnd().endsWith(":");

/** Whether `line` continues the hard-wrapped item above it: indented with spaces exactly to the
 * item's text column, and no fence. */
function continues(line: string, hang: number): boolean {
  if (hang < 4 || line.length <= hang || line.charCodeAt(hang) === 32) return false;
  for (let i = 0; i < hang; i++) if (line.charCodeAt(i) !== 32) return false;
  return !line.startsWith("```", hang) && !line.startsWith("~~~", hang);
}

/** Where `<pre>` (or `<pre ...>`) opens in the line, any case, or -1. */
function preOpen(line: string): number {
  if (!line.includes("<")) return -1;
  const lower = line.toLowerCase();
  for (let at = lower.indexOf("<pre"); at >= 0; at = lower.indexOf("<pre", at + 1)) {
    const next = lower.charCodeAt(at + 4);
    if (next === 62 || isBlank(next) || Number.isNaN(next)) return at;
  }
  return -1;
}
const preCloses = (line: string, from = 0): boolean => line.includes("<") && line.toLowerCase().includes("</pre>", from);

/** Whether collapsing could change the text: it holds a tab, a no-break space, two blanks in a
 * row, a blank ending a line, or two empty lines in a row. One pass, no copy: most prose has none. */
function mayChange(text: string): boolean {
  let lineStart = 0;
  let prevEmpty = false;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 10;
    if (c === 32) {
      const d = text.charCodeAt(i + 1);
      if (d === 32 || d === 10 || d === 13 || d === 9 || d === 0xa0 || i + 1 === text.length) return true;
    } else if (c === 9 || c === 0xa0) return true;
    else if (c === 10) {
      const empty = i === lineStart || (i === lineStart + 1 && text.charCodeAt(lineStart) === 13);
      if (empty && prevEmpty) return true;
      prevEmpty = empty;
      lineStart = i + 1;
    }
  }
  return false;
}

/** The text collapsed, or null when nothing changes. Linear: each line is looked at once. */
export function collapseWhitespace(text: string): string | null {
  return looksJson(text) || !mayChange(text) ? null : collapseLines(text);
}

/** collapseWhitespace without the precheck (exported for its test). */
export function collapseLines(text: string): string | null {
  if (looksJson(text)) return null;
  const lines = text.split("\n");
  const out: string[] = [];
  let fence: string | null = null;
  let pre = false;
  let blank = false;
  // JSON documents in the text: the whitespace in their strings is data; their lines stay whole.
  const docs = text.includes("{") || text.includes("[") ? jsonSpans(text, true) : [];
  let doc = 0;
  let next = 0; // where the next line starts in the text
  // The text column of the hard-wrapped item the previous line belongs to (see hangingIndent), or -1.
  let hang = -1;
  for (const line of lines) {
    const start = next;
    next += line.length + 1;
    const item = hang;
    hang = -1;
    while (doc < docs.length && docs[doc]!.end <= start) doc++;
    if (doc < docs.length && docs[doc]!.start < next) {
      out.push(line);
      blank = false;
      continue;
    }
    if (fence !== null) {
      out.push(line);
      if (nextFence(line, 0, fence)) fence = null;
      continue;
    }
    if (pre) {
      out.push(line);
      if (preCloses(line)) pre = false;
      continue;
    }
    const opens = nextFence(line, 0);
    if (opens) {
      fence = opens.mark;
      out.push(line);
      blank = false;
      continue;
    }
    const at = preOpen(line);
    if (at >= 0) {
      pre = !preCloses(line, at);
      out.push(line);
      blank = false;
      continue;
    }
    if (continues(line, item)) {
      out.push(collapseLine(line));
      if (wrapped(line)) hang = item;
      blank = false;
      continue;
    }
    if (line.startsWith("\t") || line.startsWith("    ")) {
      if (line.trim() === "") {
        if (!blank) out.push("");
        blank = true;
        continue;
      }
      out.push(line);
      blank = false;
      continue;
    }
    const collapsed = collapseLine(line);
    if (collapsed === "" || collapsed === "\r") {
      if (!blank) out.push(collapsed);
      blank = true;
      continue;
    }
    out.push(collapsed);
    if (wrapped(line)) hang = hangingIndent(line);
    blank = false;
  }
  const result = out.join("\n");
  return result === text ? null : result;
}

function collapseMessage(m: ChatMessage): ChatMessage | null {
  if (typeof m.content === "string") {
    const out = collapseWhitespace(m.content);
    return out === null ? null : { ...m, content: out };
  }
  const content = m.content;
  if (!Array.isArray(content)) return null;
  let parts: ContentPart[] | null = null;
  content.forEach((p, i) => {
    const out = p.type === "text" && typeof p.text === "string" ? collapseWhitespace(p.text) : null;
    if (out !== null) (parts ??= content.slice())[i] = { ...p, text: out };
  });
  return parts ? { ...m, content: parts } : null;
}

/** Only whitespace changed: the texts' other characters are the same, in the same order. */
function sameInk(a: string, b: string): boolean {
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < a.length && isInvisible(a.charCodeAt(i))) i++;
    while (j < b.length && isInvisible(b.charCodeAt(j))) j++;
    if (i >= a.length || j >= b.length) return i >= a.length && j >= b.length;
    if (a.charCodeAt(i++) !== b.charCodeAt(j++)) return false;
  }
}
const isInvisible = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13 || c === 0xa0;

/** The indentation of every line that is not blank is the same in both texts, in order: code and
 * nested lists keep their shape. Compared in place, line by line, without splitting either text. */
function sameIndents(a: string, b: string): boolean {
  const x = { at: 0, start: 0, end: 0 };
  const y = { at: 0, start: 0, end: 0 };
  for (;;) {
    const more = nextIndent(a, x);
    if (more !== nextIndent(b, y)) return false;
    if (!more) return true;
    if (x.end - x.start !== y.end - y.start) return false;
    for (let i = x.start, j = y.start; i < x.end; i++, j++) if (a.charCodeAt(i) !== b.charCodeAt(j)) return false;
  }
}

/** Moves `c` past the next line (from c.at) that is not blank, its indentation at [c.start, c.end);
 * false when none is left. A line is blank when only blanks come before its end or a "\r". */
function nextIndent(text: string, c: { at: number; start: number; end: number }): boolean {
  while (c.at <= text.length) {
    const start = c.at;
    let k = start;
    while (k < text.length && isBlank(text.charCodeAt(k))) k++;
    const nl = text.indexOf("\n", k);
    const end = nl < 0 ? text.length : nl;
    c.at = end + 1;
    if (k < end && text.charCodeAt(k) !== 13) {
      c.start = start;
      c.end = k;
      return true;
    }
  }
  return false;
}

const textOf = (m: ChatMessage): string =>
  typeof m.content === "string" ? m.content : Array.isArray(m.content) ? m.content.map((p) => p.text ?? "").join("\n") : "";

export const whitespace: Stage = {
  name: "whitespace",
  from: "safe",
  run(req: ChatRequest, ctx) {
    let messages: ChatMessage[] | null = null;
    req.messages.forEach((m, i) => {
      if (ctx.untouchable.has(i)) return;
      const out = collapseMessage(m);
      if (out) (messages ??= req.messages.slice())[i] = out;
    });
    return messages ? { ...req, messages } : null;
  },
  verify: (before, after) =>
    before.messages.length === after.messages.length &&
    before.messages.every((m, i) => {
      if (m === after.messages[i]) return true;
      const a = textOf(m);
      const b = textOf(after.messages[i]!);
      if (!sameInk(a, b) || !sameIndents(a, b)) return false;
      // Every JSON document of the input is still there as it was (spaces in its strings are data).
      return jsonSpans(a, true).every((d) => b.includes(a.slice(d.start, d.end)));
    }),
};
