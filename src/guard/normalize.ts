// The text the detector reads (docs/guard.md "Normalisation"): escapes decoded, invisible
// characters dropped, look-alikes folded, every position mapped back to the original so redaction
// replaces the original characters. A pure-ASCII text without escapes is returned as is.

/** The view and its way back: for each character of `text`, the original range it was read
 * from (a decoded escape or folded character: the whole unit). Removed characters belong to no
 * view character: they lie between their neighbours' ranges. Null maps: the text is the
 * original. `inner`: the view is of another view (two levels of escapes). */
export interface ScanView {
  text: string;
  from: Int32Array | null;
  to: Int32Array | null;
  inner?: ScanView;
}

const NEEDS = /[^\x00-\x7f]|\\u[0-9A-Fa-f]{4}|%[0-9A-Fa-f]{2}|&#/;

/** Removed: zero-width and format characters (the model reads through them). */
const isInvisible = (cp: number) =>
  cp === 0xad || cp === 0x34f || cp === 0x61c || cp === 0x180e || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e)
  || (cp >= 0x2060 && cp <= 0x206f) || cp === 0xfeff || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0000 && cp <= 0xe007f);
const isSpace = (cp: number) => cp === 0xa0 || cp === 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp === 0x202f || cp === 0x205f || cp === 0x3000;
const isDash = (cp: number) => (cp >= 0x2010 && cp <= 0x2015) || cp === 0x2212 || cp === 0x2043 || cp === 0x30fc;
const MARK = /^\p{M}$/u;
const DIGIT = /^\p{Nd}$/u;

/** Cyrillic, Greek and other letters that look like ASCII ones. */
const LOOKALIKE: Readonly<Record<string, string>> = {
  "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ɡ": "g", "һ": "h", "ӏ": "l",
  "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T", "У": "Y", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J", "Ԁ": "D", "Ԛ": "Q", "Ԝ": "W", "Ү": "Y", "Ӏ": "I",
  "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
  "α": "a", "ο": "o", "ρ": "p", "ν": "v", "ι": "i", "κ": "k", "τ": "t", "υ": "u", "χ": "x", "ε": "e",
  "ı": "i", "ℓ": "l", "。": ".", "．": ".", "｡": ".", "․": ".", "‚": ",", "＠": "@", "﹫": "@",
};

/** Per code point: what it reads as (NFKC, then look-alikes and digits). Memoised, bounded. */
const memo = new Map<number, string>();
function foldCodePoint(cp: number): string {
  const hit = memo.get(cp);
  if (hit !== undefined) return hit;
  let out: string;
  if (isInvisible(cp)) out = "";
  else if (isSpace(cp)) out = " ";
  else if (isDash(cp)) out = "-";
  else {
    const ch = String.fromCodePoint(cp);
    if (MARK.test(ch)) out = "";
    else {
      let n = ch.normalize("NFKC");
      if (n.length > 8) n = ch; // ligatures of words (U+FDFA) are not what we look for
      out = "";
      for (const c of n) out += foldSingle(c);
    }
  }
  if (memo.size < 65_536) memo.set(cp, out);
  return out;
}

function foldSingle(c: string): string {
  const cp = c.codePointAt(0)!;
  if (cp < 128) return c;
  const look = LOOKALIKE[c];
  if (look !== undefined) return look;
  if (DIGIT.test(c)) {
    // Decimal digits come in blocks of ten: walk back to the block's zero.
    let zero = cp;
    while (zero > cp - 9 && DIGIT.test(String.fromCodePoint(zero - 1))) zero--;
    // Adjacent blocks (mathematical digits): the zero is a multiple of ten from the block start.
    return String((cp - zero) % 10);
  }
  if (MARK.test(c) || isInvisible(cp)) return "";
  return c;
}

const hex = (s: string) => (/^[0-9A-Fa-f]+$/.test(s) ? parseInt(s, 16) : -1);

/** An escape at `i` that the reader decodes: its code point and length, or null. */
function escapeAt(text: string, i: number): { cp: number; len: number } | null {
  const c = text.charCodeAt(i);
  if (c === 92 && text.charCodeAt(i + 1) === 117) {
    const u = hex(text.slice(i + 2, i + 6));
    if (u < 0) return null;
    if (u >= 0xd800 && u < 0xdc00 && text.startsWith("\\u", i + 6)) {
      const lo = hex(text.slice(i + 8, i + 12));
      if (lo >= 0xdc00 && lo < 0xe000) return { cp: 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00), len: 12 };
    }
    return { cp: u, len: 6 };
  }
  if (c === 37) {
    const b = hex(text.slice(i + 1, i + 3));
    if (b < 0) return null;
    if (b < 0x80) return { cp: b, len: 3 };
    // A UTF-8 sequence in percent-escapes (%EF%BC%A0 is a fullwidth @).
    const n = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 0;
    if (n === 0) return null;
    try {
      const s = decodeURIComponent(text.slice(i, i + 3 * n));
      return { cp: s.codePointAt(0)!, len: 3 * n };
    } catch {
      return null;
    }
  }
  if (c === 38 && text.charCodeAt(i + 1) === 35) {
    const m = /^&#(?:[xX]([0-9A-Fa-f]{1,6})|([0-9]{1,7}));?/.exec(text.slice(i, i + 12));
    if (!m) return null;
    const cp = m[1] !== undefined ? parseInt(m[1], 16) : parseInt(m[2]!, 10);
    return cp > 0 && cp <= 0x10ffff ? { cp, len: m[0].length } : null;
  }
  return null;
}

const ESCAPED = /\\u[0-9A-Fa-f]{4}|%[0-9A-Fa-f]{2}|&#/;

/** Two levels of escapes: a URL carrying a JSON escape (`%5Cu0040`), an escaped entity. */
export function scanView(text: string): ScanView {
  const one = viewOnce(text);
  if (!one.from || !ESCAPED.test(one.text)) return one;
  const two = viewOnce(one.text);
  return two.from ? { ...two, inner: one } : one;
}

/** Whether the text has anything to decode or fold: non-ASCII (its UTF-8 length differs, which
 * Bun counts natively) or an escape. Both checks run far faster than any per-character loop or
 * regex, and this runs on every text of every request. */
function needsView(text: string): boolean {
  // Short texts (one-word messages, names, ids): one pass over the units beats the native calls'
  // fixed cost, which dominated a request of 200k short messages.
  if (text.length <= 64) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c > 127 || c === 92 || c === 37 || c === 38) return needsViewSlow(text);
    }
    return false;
  }
  return needsViewSlow(text);
}

function needsViewSlow(text: string): boolean {
  if (Buffer.byteLength(text, "utf8") !== text.length) return true;
  for (const ch of ["\\", "%", "&"]) {
    for (let i = text.indexOf(ch); i >= 0; i = text.indexOf(ch, i + 1)) if (NEEDS.test(text.slice(i, i + 6))) return true;
  }
  return false;
}

/** Per UTF-16 unit: 1 reads as itself, 2 folds (FOLD holds what to), 3 may open an escape, 4 a
 * surrogate. Filled as units are met: at most 65,536 entries for the process. */
const KIND = new Uint8Array(65_536);
const FOLD: string[] = [];
for (let c = 0; c < 128; c++) KIND[c] = c === 92 || c === 37 || c === 38 ? 3 : 1;
for (let c = 0xd800; c < 0xe000; c++) KIND[c] = 4;
function kindOf(c: number): number {
  const out = foldCodePoint(c);
  FOLD[c] = out;
  return (KIND[c] = out.length === 1 && out.charCodeAt(0) === c ? 1 : 2);
}

const UTF16 = new TextDecoder("utf-16le");

/** Typed arrays, written once per character, and one decode at the end: string appends and
 * array pushes per character cost several times the detector itself. */
function viewOnce(text: string): ScanView {
  if (!needsView(text)) return { text, from: null, to: null };
  const n = text.length;
  let cap = n + 16;
  let buf = new Uint16Array(cap);
  let from = new Int32Array(cap);
  let to = new Int32Array(cap);
  let k = 0;
  const grow = (need: number) => {
    cap = Math.max(cap * 2, k + need);
    const b = new Uint16Array(cap);
    b.set(buf);
    buf = b;
    const f = new Int32Array(cap);
    f.set(from);
    from = f;
    const t = new Int32Array(cap);
    t.set(to);
    to = t;
  };
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    const kind = KIND[c] || kindOf(c);
    let rep: string | null = null;
    let len = 1;
    if (kind === 2) rep = FOLD[c]!;
    else if (kind === 3) {
      const esc = escapeAt(text, i);
      if (esc) (rep = esc.cp < 128 ? String.fromCharCode(esc.cp) : foldCodePoint(esc.cp)), (len = esc.len);
    } else if (kind === 4) {
      const cp = text.codePointAt(i)!;
      if (cp > 0xffff) (rep = foldCodePoint(cp)), (len = 2); // a lone surrogate reads as itself
    }
    if (rep === null) {
      if (k >= cap) grow(1);
      (buf[k] = c), (from[k] = i), (to[k] = i + 1), k++;
    } else {
      if (k + rep.length > cap) grow(rep.length);
      for (let x = 0; x < rep.length; x++) (buf[k] = rep.charCodeAt(x)), (from[k] = i), (to[k] = i + len), k++;
    }
    i += len;
  }
  return { text: UTF16.decode(buf.subarray(0, k)), from: from.subarray(0, k), to: to.subarray(0, k) };
}

/** The original range of the view's characters [start, end). */
export function originalRange(view: ScanView, start: number, end: number): { start: number; end: number } {
  if (!view.from || !view.to) return { start, end };
  const r = { start: view.from[start]!, end: view.to[end - 1]! };
  return view.inner ? originalRange(view.inner, r.start, r.end) : r;
}
