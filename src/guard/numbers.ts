// Phone and payment card numbers at a word start (docs/guard.md "What is found"): one reader
// collects the digit groups and separators, then shape rules classify the sequence or a head of it.
import { luhn } from "./checksums.ts";
import type { Finding, PiiKind } from "./kinds.ts";

const SPACE = 1;
const DASH = 2;
const DOT = 4;
const PAREN = 8;
const SEPARATOR: Readonly<Record<number, number>> = { 32: SPACE, 45: DASH, 46: DOT };
/** Longer runs of groups are tables of numbers, not one number; reading stops there. */
const MAX_GROUPS = 8;

const isDigit = (c: number) => c >= 48 && c <= 57;
/** ASCII letters, digits and `_`: what continues a word. */
export const isWordChar = (c: number) => (c >= 48 && c <= 57) || ((c | 0x20) >= 97 && (c | 0x20) <= 122) || c === 95;

interface Groups {
  plus: boolean;
  digits: string;
  /** Digits per group, and where each group ends in the text. */
  sizes: number[];
  ends: number[];
  /** What stands in front of each group: SPACE, DASH or DOT (none for the first), plus PAREN
   * when the group is in parentheses. */
  seps: number[];
}

/** Reads `+`? then groups of digits, each maybe in parentheses, joined by one space, dash or dot. */
function readGroups(text: string, i: number): Groups {
  const g: Groups = { plus: false, digits: "", sizes: [], ends: [], seps: [] };
  let j = i;
  if (text.charCodeAt(j) === 43) {
    g.plus = true;
    j++;
  }
  let sep = 0;
  while (g.sizes.length < MAX_GROUPS) {
    const paren = text.charCodeAt(j) === 40 ? PAREN : 0;
    if (paren) j++;
    const start = j;
    while (isDigit(text.charCodeAt(j))) j++;
    if (j === start || (paren && text.charCodeAt(j) !== 41)) break;
    g.digits += text.slice(start, j);
    g.sizes.push(j - start);
    if (paren) j++;
    g.ends.push(j);
    g.seps.push(sep | paren);
    const s = SEPARATOR[text.charCodeAt(j)];
    const next = text.charCodeAt(j + 1);
    if (s === undefined || !(isDigit(next) || next === 40)) break;
    sep = s;
    j++;
  }
  return g;
}

const sum = (sizes: number[], k: number) => {
  let t = 0;
  for (let x = 0; x < k; x++) t += sizes[x]!;
  return t;
};

/** 13-19 digits grouped as cards are printed (one block, fours, Amex 4-6-5, Diners 4-6-4), one kind
 * of separator (space or dash), an issuer's first digit (2-6) and a valid Luhn digit. */
function isCard(g: Groups, k: number, total: number, seps: number): boolean {
  if (g.plus || total < 13 || total > 19 || (seps & (DOT | PAREN)) !== 0 || seps === (SPACE | DASH)) return false;
  const first = g.digits.charCodeAt(0) - 48;
  if (first < 2 || first > 6) return false;
  const s = g.sizes;
  const fours = s.slice(0, k - 1).every((n) => n === 4) && s[k - 1]! >= 1 && s[k - 1]! <= 4;
  const amex = k === 3 && s[0] === 4 && s[1] === 6 && (s[2] === 5 || s[2] === 4);
  if (k > 1 && !fours && !amex) return false;
  return luhn(g.digits.slice(0, total));
}

/** International (`+` and 8-15 digits, or `00` and 10-17), North American (3-3-4, maybe with a
 * leading 1 and the area code in parentheses), or national with a trunk `0`: 9-12 digits in two or
 * more groups of two or more, one kind of separator. An unseparated number without `+` is not a
 * phone number here: it is as likely an order or account number. */
function isPhone(g: Groups, k: number, total: number, seps: number): boolean {
  if (g.plus) return total >= 8 && total <= 15;
  if (k < 2) return false;
  const s = g.sizes;
  if (g.digits.startsWith("00")) return total >= 10 && total <= 17;
  if (k === 3 && s[0] === 3 && s[1] === 3 && s[2] === 4) return true;
  if (k === 4 && g.digits[0] === "1" && s[0] === 1 && s[1] === 3 && s[2] === 3 && s[3] === 4) return true;
  const plain = seps & ~PAREN;
  if (g.digits[0] !== "0" || total < 9 || total > 12 || (plain & (plain - 1)) !== 0) return false;
  return s.slice(0, k).every((n) => n >= 2) && s[0]! <= 5;
}

/** A number continues an identifier ("abc-555-123-4567", "v1.2"): the character in front joins it
 * to a word. */
function joinedBefore(text: string, start: number): boolean {
  const before = text.charCodeAt(start - 1);
  return (before === 45 || before === 46 || before === 47) && isWordChar(text.charCodeAt(start - 2));
}

/** A number runs into a word ("2024-01-15T10", "1.2.3-beta", "555@host"). */
function joinedAfter(text: string, end: number): boolean {
  const after = text.charCodeAt(end);
  if (isWordChar(after)) return true;
  return (after === 45 || after === 46 || after === 47 || after === 64) && isWordChar(text.charCodeAt(end + 1));
}

/** At a word start on a digit, `+` or `(`: pushes a phone or card finding and returns its end, or
 * returns where the numbers read end (the scanner goes on from there). */
export function numberAt(text: string, i: number, out: Finding[]): number {
  // Fast path, no allocation: a short run of digits that no separator continues ("42", "2024,").
  let j = i;
  while (isDigit(text.charCodeAt(j))) j++;
  if (j > i && j - i < 8 && !(SEPARATOR[text.charCodeAt(j)] !== undefined && isDigit(text.charCodeAt(j + 1)))) return j;
  const g = readGroups(text, i);
  const k = g.sizes.length;
  if (k === 0) return i + 1;
  const end = g.ends[k - 1]!;
  if (g.digits.length < 8 || joinedBefore(text, i)) return end; // ordinary numbers end here
  // The whole sequence first, then heads cut at a space (the rest is read again afterwards).
  let seps = 0;
  for (const s of g.seps) seps |= s;
  for (let n = k; n >= 1; n--) {
    if (n < k) {
      if (g.seps[n] !== SPACE) continue;
      seps = 0;
      for (let x = 0; x < n; x++) seps |= g.seps[x]!;
    } else if (joinedAfter(text, end)) continue;
    const total = sum(g.sizes, n);
    if (total < 8) break;
    const kind: PiiKind | null = isCard(g, n, total, seps) ? "card" : isPhone(g, n, total, seps) ? "phone" : null;
    if (kind) {
      out.push({ kind, start: i, end: g.ends[n - 1]! });
      return g.ends[n - 1]!;
    }
  }
  return end;
}
