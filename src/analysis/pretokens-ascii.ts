// o200k's pretokenizer for ASCII text, by hand: the same pieces as its split regex (whose Unicode
// property classes cost JSC ~60 ns a character), at a fraction of the cost. tokens.ts uses it only
// for all-ASCII text; test/analysis/token-count-exact.test.ts holds it to the regex's split.

// Character classes of the regex restricted to ASCII: Lu, Ll, N, \s, and P = [^\r\n\p{L}\p{N}].
const UPPER = 1, LOWER = 2, DIGIT = 4, SPACE = 8, NEWLINE = 16, PUNCT = 32;
const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if (c >= 65 && c <= 90) CLASS[c] = UPPER;
  else if (c >= 97 && c <= 122) CLASS[c] = LOWER;
  else if (c >= 48 && c <= 57) CLASS[c] = DIGIT;
  else if (c === 10 || c === 13) CLASS[c] = SPACE | NEWLINE;
  else if (c === 9 || c === 11 || c === 12 || c === 32) CLASS[c] = SPACE;
  else CLASS[c] = PUNCT;
}
const cls = (text: string, i: number): number => (i < text.length ? (CLASS[text.charCodeAt(i)] ?? 0) : 0);
/** May open a word as its prefix: anything but a letter, a digit, CR or LF. */
const isPrefix = (k: number): boolean => (k & (UPPER | LOWER | DIGIT | NEWLINE)) === 0 && k !== 0;

/** End of a contraction ('s 'd 'm 't 'll 've 're, any case) at `i`, or `i` when there is none. */
function contraction(text: string, i: number): number {
  if (text.charCodeAt(i) !== 39) return i;
  const a = text.charCodeAt(i + 1) | 32;
  if (a === 115 || a === 100 || a === 109 || a === 116) return i + 2; // s d m t
  const b = text.charCodeAt(i + 2) | 32;
  if ((a === 108 && b === 108) || (a === 118 && b === 101) || (a === 114 && b === 101)) return i + 3; // ll ve re
  return i;
}

const run = (text: string, i: number, mask: number): number => {
  while (i < text.length && (cls(text, i) & mask) !== 0) i++;
  return i;
};

/** End of the pretoken that starts at `i` (text all ASCII, i < text.length). */
export function asciiPretokenEnd(text: string, i: number): number {
  const k = cls(text, i);
  // Words: an optional prefix, capitals, then lower case (or capitals alone), then a contraction.
  const start = isPrefix(k) ? i + 1 : i;
  const afterUpper = run(text, start, UPPER);
  if (cls(text, afterUpper) & LOWER) return contraction(text, run(text, afterUpper, LOWER));
  if (afterUpper > start) return contraction(text, afterUpper);
  if (k & DIGIT) return Math.min(run(text, i, DIGIT), i + 3);
  // Punctuation: an optional space, a run of it, then CR, LF and slashes.
  const punct = text.charCodeAt(i) === 32 && cls(text, i + 1) & PUNCT ? i + 1 : i;
  if (cls(text, punct) & PUNCT) return crLfSlash(text, run(text, punct, PUNCT));
  // Whitespace: up to its last CR or LF; else all of it at the end of the text, or all but the
  // last character before a non-space, or the one character.
  const end = run(text, i, SPACE);
  for (let j = end - 1; j >= i; j--) if (cls(text, j) & NEWLINE) return j + 1;
  if (end === text.length || end - i === 1) return end;
  return end - 1;
}

function crLfSlash(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 13 && c !== 10 && c !== 47) break;
    i++;
  }
  return i;
}

const ASCII_ONLY = /^[\x00-\x7f]*$/;
export const isAscii = (text: string): boolean => ASCII_ONLY.test(text);
