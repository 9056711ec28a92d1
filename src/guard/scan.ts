// Findings over all the texts of one request (docs/guard.md "Normalisation", "Across texts"): each
// text alone through its normalised view, then joined, for values split across texts. Positions
// come back in each original text.
import { detect } from "./detect.ts";
import { CATEGORY, type Finding, type Kind, type Wanted } from "./kinds.ts";
import { originalRange, scanView, type ScanView } from "./normalize.ts";

/** A finding in one original text; `value` is its normalised spelling (the placeholder's key). */
export interface Located {
  kind: Kind;
  start: number;
  end: number;
  value: string;
}

export interface ScanResult {
  /** Per text, in order, without overlap. */
  perText: Located[][];
  /** Every counted finding's kind (a split value counts once). */
  counted: Kind[];
  /** The limit was reached: scanning stopped. */
  capped: boolean;
}

/** `joins[t]`: text t is read together with its neighbours that join too (a chat's free texts;
 * not names, nor embedding inputs, which are embedded one by one). */
export function scanTexts(texts: readonly string[], want: Wanted, limit: number, joins: readonly boolean[]): ScanResult {
  // Index loops, and the joined texts' lists made once for both separators: this runs per request.
  const views: ScanView[] = [];
  const perText: Located[][] = [];
  for (let t = 0; t < texts.length; t++) views.push(scanView(texts[t]!)), perText.push([]);
  const counted: Kind[] = [];
  for (let t = 0; t < views.length && counted.length < limit; t++) {
    const v = views[t]!;
    const found = detect(v.text, want, limit - counted.length);
    for (let k = 0; k < found.length; k++) {
      const f = found[k]!;
      const r = originalRange(v, f.start, f.end);
      perText[t]!.push({ kind: f.kind, start: r.start, end: r.end, value: v.text.slice(f.start, f.end) });
      counted.push(f.kind);
    }
  }
  const joined: number[] = [];
  for (let t = 0; t < texts.length; t++) if (joins[t]) joined.push(t);
  if (counted.length < limit && joined.length > 1) {
    const subTexts: string[] = [];
    const subViews: ScanView[] = [];
    const subPer: Located[][] = [];
    for (const t of joined) subTexts.push(texts[t]!), subViews.push(views[t]!), subPer.push(perText[t]!);
    crossing(subTexts, subViews, subPer, counted, "", want, limit);
    if (want.pii || mayHoldKey(subViews)) crossing(subTexts, subViews, subPer, counted, " ", want, limit);
  }
  for (const list of perText) merge(list);
  return { perText, counted, capped: counted.length >= limit };
}

/** With a space between texts, a value crossing a boundary holds that space. Of the secrets, only
 * a private key block can (token values are runs of [A-Za-z0-9_./+=~-]), and its opening line,
 * up to the space after BEGIN, lies in one text: without it, the spaced pass finds none. */
const mayHoldKey = (views: readonly ScanView[]): boolean => views.some((v) => v.text.includes("-----BEGIN"));

/** Findings of the joined views that cross a boundary, cut into their pieces per text. */
function crossing(texts: readonly string[], views: ScanView[], perText: Located[][], counted: Kind[], sep: string, want: Wanted, limit: number): void {
  const offsets: number[] = [];
  const owned: number[] = [];
  const parts: string[] = [];
  let at = 0;
  for (let x = 0; x < views.length; x++) {
    const text = views[x]!.text;
    offsets.push(at), owned.push(perText[x]!.length), parts.push(text);
    at += text.length + sep.length;
  }
  const joined = parts.join(sep);
  let t = 0;
  for (const f of nearBoundaries(joined, offsets, sep.length, want, limit - counted.length)) {
    while (t + 1 < views.length && offsets[t + 1]! <= f.start) t++;
    const last = lastText(offsets, t, f.end);
    if (last === t) continue; // inside one text: already read alone
    const value = joined.slice(f.start, f.end);
    let overlaps = false;
    let continues = false;
    const pieces: Array<[number, Located]> = [];
    for (let x = t; x <= last; x++) {
      const v = views[x]!;
      const s = Math.max(f.start - offsets[x]!, 0);
      const e = Math.min(f.end - offsets[x]!, v.text.length);
      if (e <= s) continue;
      const r = originalRange(v, s, e);
      // Pieces run to their text's end or from its start: only its last or first own finding
      // can overlap (constant work per piece, whatever the number of findings).
      const list = perText[x]!;
      for (const p of owned[x]! > 0 ? [list[0], list[owned[x]! - 1]] : []) {
        if (!p || !(p.start < r.end && r.start < p.end)) continue;
        overlaps = true;
        // A secret cut so that its head is a secret alone: its tail is still a secret's.
        if (p.kind === f.kind && CATEGORY[f.kind] === "secrets" && (p.end === texts[x]!.length || p.start === 0)) continues = true;
      }
      pieces.push([x, { kind: f.kind, start: r.start, end: r.end, value }]);
    }
    // Otherwise one that overlaps a text's own finding is two values run together ("a@b.com"
    // then "plain text" reads "a@b.complain"): the value is redacted already, the rest is not one.
    if (overlaps && !continues) continue;
    for (const [x, p] of pieces) perText[x]!.push(p);
    if (!overlaps) counted.push(f.kind);
    if (counted.length >= limit) return;
  }
}

/** How far on each side of a boundary a split value is looked for: at most SPLIT_WINDOW
 * characters and SPLIT_SPACES spaces (a printed IBAN has five; an e-mail address or a token
 * none), so a small request pays for a few dozen characters, not its whole text again. */
export const SPLIT_WINDOW = 512;
const SPLIT_SPACES = 8;

const isSpace = (c: number) => c === 32 || c === 10 || c === 9 || c === 13;

function back(text: string, from: number): number {
  let i = from;
  let spaces = 0;
  while (i > 0 && from - i < SPLIT_WINDOW) {
    if (isSpace(text.charCodeAt(i - 1)) && ++spaces > SPLIT_SPACES) break;
    i--;
  }
  return i;
}

function forward(text: string, from: number): number {
  let i = from;
  let spaces = 0;
  while (i < text.length && i - from < SPLIT_WINDOW) {
    if (isSpace(text.charCodeAt(i)) && ++spaces > SPLIT_SPACES) break;
    i++;
  }
  return i;
}

/** Findings of `joined` near a boundary: windows that overlap are read as one, so the work is at
 * most the joined length. */
function nearBoundaries(joined: string, offsets: number[], sep: number, want: Wanted, limit: number): Finding[] {
  // Many short texts (200k one-word messages): the windows would read each character hundreds of
  // times. When they would cover more than the text, one pass over the whole of it is cheaper and
  // finds the same crossing values (the caller keeps only findings that cross a boundary).
  if ((offsets.length - 1) * 2 * SPLIT_WINDOW >= joined.length) return detect(joined, want, limit);
  const out: Finding[] = [];
  let x = 1;
  while (x < offsets.length && out.length < limit) {
    const start = back(joined, offsets[x]! - sep);
    let end = forward(joined, offsets[x]!);
    while (x + 1 < offsets.length && back(joined, offsets[x + 1]! - sep) <= end) end = forward(joined, offsets[++x]!);
    x++;
    for (const f of detect(joined.slice(start, end), want, limit - out.length)) out.push({ kind: f.kind, start: f.start + start, end: f.end + start });
  }
  return out;
}

function lastText(offsets: number[], from: number, end: number): number {
  let x = from;
  while (x + 1 < offsets.length && offsets[x + 1]! < end) x++;
  return x;
}

/** Sorts and merges overlapping findings (the longest value names the merged one). */
function merge(list: Located[]): void {
  if (list.length < 2) return;
  list.sort((a, b) => a.start - b.start);
  let w = 0;
  for (let r = 1; r < list.length; r++) {
    const cur = list[w]!;
    const next = list[r]!;
    if (next.start < cur.end) {
      cur.end = Math.max(cur.end, next.end);
      // A secret's head and the whole secret across texts: the whole one names the placeholder.
      if (next.value.length > cur.value.length) (cur.value = next.value), (cur.kind = next.kind);
    }
    else list[++w] = next;
  }
  list.length = w + 1;
}
