// Linear, bounded BPE counting (issue 14 item 1; docs/availability.md "Request input"): text is
// cut into pieces so no pretoken longer than RUN_CHARS reaches the BPE merge loop (quadratic in
// a pretoken's length), and past EXACT_CHARS per request a fixed sample is counted and scaled.

/** Texts (all of one request's texts together) up to this many UTF-16 units are counted in full. */
export const EXACT_CHARS = 16 * 1024;
/** A run without a word boundary is cut after this many units: BPE on a cut run is linear, and
 * each cut can change the count by about one token. */
export const RUN_CHARS = 128;
/** Pieces handed to the tokenizer end at a word boundary once they reach this size. */
const PIECE_CHARS = 4096;
/** The sample beyond EXACT_CHARS: this many windows of WINDOW_CHARS, spread evenly. */
export const SAMPLE_WINDOWS = 16;
export const WINDOW_CHARS = 1024;

export type CountPiece = (piece: string) => number;

// ASCII whitespace is where the o200k pretokenizer starts a new word (" word"); a cut just before
// it leaves the pretokens, and so the count, as they were.
const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13);
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** Counts text[from, to) piece by piece: linear in its length, exact bar one token per forced cut. */
export function countInPieces(count: CountPiece, text: string, from = 0, to = text.length): number {
  let total = 0;
  let start = from;
  let mark = from; // the last word boundary or forced cut
  for (let i = from + 1; i < to; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c) && !isSpace(text.charCodeAt(i - 1))) {
      if (i - start >= PIECE_CHARS) (total += count(text.slice(start, i))), (start = i);
      mark = i;
    } else if (i - mark >= RUN_CHARS) {
      const cut = isLowSurrogate(c) ? i - 1 : i; // never between the halves of a surrogate pair
      total += count(text.slice(start, cut));
      start = mark = cut;
    }
  }
  return to > start ? total + count(text.slice(start, to)) : total;
}

/** Moves a window start forward to a word boundary, if one is near, so the sample cuts no word. */
function alignStart(text: string, at: number, limit: number): number {
  for (let i = at; i < Math.min(limit, at + 64); i++) {
    if (isSpace(text.charCodeAt(i)) && i > 0 && !isSpace(text.charCodeAt(i - 1))) return i;
  }
  return isLowSurrogate(text.charCodeAt(at)) ? at + 1 : at;
}

/**
 * An estimate for a text longer than EXACT_CHARS: SAMPLE_WINDOWS windows spread evenly over it are
 * counted and their tokens per unit scaled to the whole length. Uniform text (prose, code, base64,
 * one repeated token, CJK) lands within about 1%; text built to differ between the windows and
 * the gaps can be off by more, which is why money paths hold on the byte bound instead.
 */
export function estimateBySample(count: CountPiece, text: string): number {
  const n = text.length;
  if (n <= EXACT_CHARS) return countInPieces(count, text);
  let tokens = 0;
  let units = 0;
  for (let k = 0; k < SAMPLE_WINDOWS; k++) {
    const centre = Math.floor(((k + 0.5) * n) / SAMPLE_WINDOWS);
    const from = alignStart(text, Math.max(0, centre - WINDOW_CHARS / 2), n);
    const to = Math.min(n, from + WINDOW_CHARS);
    tokens += countInPieces(count, text, from, to);
    units += to - from;
  }
  return units === 0 ? 0 : Math.ceil((tokens / units) * n);
}
