// Punctuation in the scan: sentence and line boundaries, questions, quotes, code fences, code and
// math marks, list items. Returns the index to continue from (a code fence is skipped whole).
import { pushUnique } from "./entities.ts";
import { CLASS, isWordClass } from "./language.ts";
import type { ScanState } from "./scan-state.ts";

/** Opening quote -> its closing quote (German „...“ closes with U+201C). */
const CLOSER = new Map<number, number>([
  [0x22, 0x22], [0x201c, 0x201d], [0x201e, 0x201c], [0xab, 0xbb], [0x300c, 0x300d], [0x300e, 0x300f],
  [0x27, 0x27], [0x2018, 0x2019],
]);
const MAX_QUOTE = 300;

/** What a punctuation character may be, one table read per character instead of set lookups. */
const M_QUOTE = 1, M_OPERATOR = 2, M_MATH = 3;
const MARK_KIND = new Uint8Array(65536);
for (const c of [...CLOSER.keys(), 0x201d, 0xbb, 0x300d, 0x300f, 0x2019]) MARK_KIND[c] = M_QUOTE;
for (const ch of "+-*/^=×÷<>≤≥") MARK_KIND[ch.charCodeAt(0)] = M_OPERATOR;
// Symbols only math uses.
for (const ch of "∫∑∏√π∞∂≠≈±²³∆θλσμ∈∀∃⊂∪∩≡") MARK_KIND[ch.charCodeAt(0)] = M_MATH;

const wordAt = (s: ScanState, i: number): boolean => {
  if (i < 0 || i >= s.n) return false;
  const c = s.src.charCodeAt(i);
  return c < 0x2000 ? isWordClass(CLASS[c] ?? 0) : c >= 0x3040;
};

export function mark(s: ScanState, c: number, i: number): number {
  const text = s.src;
  switch (c) {
    case 0x0a:
      s.sentenceStart = true;
      s.lineStart = true;
      s.quoteOpen = -1;
      s.pend0 = s.pend1 = -1;
      return i + 1;
    case 0x20: case 0x09: case 0x0d: case 0xa0:
      return i + 1;
    case 0x3f: case 0xff1f: case 0x61f: case 0x37e: case 0x2e: case 0x21: case 0x3002: case 0xff01: case 0x3a: case 0xff1a:
      if (c === 0x3f || c === 0xff1f || c === 0x61f || c === 0x37e) s.questions++;
      s.sentenceStart = true;
      s.pend0 = s.pend1 = -1;
      s.mathPrev = false;
      s.lineStart = false;
      return i + 1;
    case 0x60:
      if (text.startsWith("```", i)) {
        s.codeFences++;
        const close = text.indexOf("```", i + 3);
        return close < 0 ? s.n : close + 3;
      }
      s.codeMarks++;
      return i + 1;
    case 0x7b: case 0x7d: case 0x3b:
      s.codeMarks++;
      break;
    case 0x28:
      if (text.charCodeAt(i + 1) === 0x29) s.codeMarks++;
      break;
    case 0x29:
      s.lineStart = false;
      s.mathPrev = true;
      return i + 1;
    case 0x5c:
      if (wordAt(s, i + 1)) s.mathMarks++;
      break;
    case 0x2d: case 0x2a: case 0x2022:
      if (s.lineStart) {
        s.listItems++;
        s.lineStart = false;
        return i + 1;
      }
      break;
    case 0xbf: case 0xa1:
      s.langScores[3] = (s.langScores[3] ?? 0) + 1; // Spanish ¿ ¡
      return i + 1;
  }
  s.lineStart = false;
  const kind = MARK_KIND[c] ?? 0;
  if (kind === M_QUOTE) quote(s, c, i);
  else if (kind === M_OPERATOR) operator(s, c, i);
  else if (kind === M_MATH) s.mathMarks += 2;
  return i + 1;
}

function quote(s: ScanState, c: number, i: number): void {
  if (s.quoteOpen >= 0 && i - s.quoteOpen > MAX_QUOTE) s.quoteOpen = -1;
  const single = c === 0x27 || c === 0x2018 || c === 0x2019;
  if (s.quoteOpen >= 0) {
    const closes = c === s.quoteCloser || (s.quoteCloser === 0x201d && c === 0x201c);
    if (!closes || (single && wordAt(s, i + 1))) return;
    const text = s.src.slice(s.quoteOpen + 1, i).trim();
    if (text.length > 0) pushUnique(s.entities.quoted, text);
    s.quoteOpen = -1;
    return;
  }
  const closer = CLOSER.get(c);
  if (closer === undefined) return;
  if (single && (wordAt(s, i - 1) || !wordAt(s, i + 1))) return;
  s.quoteOpen = i;
  s.quoteCloser = closer;
}

/** An operator between numbers or variables ("3 + 4", "x^2", "2x = 6") is math notation. */
function operator(s: ScanState, c: number, i: number): void {
  const text = s.src;
  if (c === 0x3d && (text.charCodeAt(i + 1) === 0x3d || text.charCodeAt(i + 1) === 0x3e)) s.codeMarks++;
  if (c === 0x3c && text.charCodeAt(i + 1) === 0x2f) s.codeMarks++;
  if (!s.mathPrev) return;
  let j = i + 1;
  while (text.charCodeAt(j) === 0x20) j++;
  const d = text.charCodeAt(j);
  const digit = d >= 0x30 && d <= 0x39;
  const variable = d >= 0x61 && d <= 0x7a && !wordAt(s, j + 1);
  if (digit || variable || d === 0x28) s.mathMarks++;
}
