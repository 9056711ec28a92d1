// Numbers as the literal guard compares them (docs/semantic-cache.md "Literal guard"): every token
// holding a digit, thousands separators folded, with its suffix or the unit word after it, so
// "60K" and "6K", "5 km" and "5 miles", "2 billion" and "2 million" all differ, and a scale is
// multiplied out, so "60K", "60 thousand" and "60,000" agree.
import { unitOf } from "./guard-caseless.ts";
import { UNITS } from "./guard-words.ts";

const SUFFIXED = /^(\d+(?:[.,]\d+)*)(k|bn|mio|mrd)$/;
const PLAIN = /^\d+(?:[.,]\d+)*$/;
const HAS_DIGIT = /\d/;
const BARE_SUFFIX = /^(\d[\d.,]*)[\p{L}%]+$/u;
const THOUSANDS = /(\d),(?=\d{3}(?:\D|$))/g;
const CURRENCY = /^[$€£¥₹]\d/;

export const foldNumber = (v: string): string => v.toLowerCase().replace(THOUSANDS, "$1").replace(/^#/, "");

const SCALE_DIGITS: ReadonlyMap<string, number> = new Map([["e2", 2], ["e3", 3], ["e4", 4], ["e6", 6], ["e8", 8], ["e9", 9]]);
const DECIMAL = /^(\d+)(?:[.,](\d+))?$/;

/** "1.5" and scale "e6" as "1500000", in exact string arithmetic; null when `unit` is no scale or
 * the value keeps a fraction ("1.2345k"), which then stays as it is written. */
export function multiplyOut(num: string, unit: string | undefined): string | null {
  const zeros = unit === undefined ? undefined : SCALE_DIGITS.get(unit);
  const parts = zeros === undefined ? null : DECIMAL.exec(num);
  if (zeros === undefined || parts === null) return null;
  const fraction = parts[2] ?? "";
  if (fraction.length > zeros) return null;
  return `${parts[1]}${fraction.padEnd(zeros, "0")}`.replace(/^0+(?=\d)/, "");
}

/** `tokens`: the question's lowercased words in order ("%" is a token of its own). */
export function quantities(tokens: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    if (!HAS_DIGIT.test(t)) continue;
    const folded = foldNumber(t);
    const suffixed = SUFFIXED.exec(folded);
    if (suffixed !== null) {
      const unit = UNITS.get(suffixed[2] ?? "") ?? "";
      const scaled = multiplyOut(suffixed[1] ?? "", unit);
      out.push(scaled === null ? `${suffixed[1]}${unit}` : `${scaled}${unitAfterScale(tokens[i + 1])}`);
      continue;
    }
    const unit = PLAIN.test(folded) ? unitOf(tokens[i + 1]) : undefined;
    const scaled = multiplyOut(folded, unit);
    out.push(scaled !== null ? `${scaled}${unitAfterScale(tokens[i + 2])}` : unit === undefined ? folded : `${folded}${unit}`);
  }
  return out;
}

/** The unit after a scale ("1.5 million dollars" as "1500000usd", as "1,500,000 dollars" is). */
function unitAfterScale(token: string | undefined): string {
  const unit = unitOf(token);
  return unit === undefined || SCALE_DIGITS.has(unit) ? "" : unit;
}

/** A bare number as the `numbers` fact: its scale suffix multiplied out ("60k" as "60000"), or its
 * scale word after it in `tokens` ("60 thousand"), else without its suffix ("5km" as "5"). */
export function bareNumber(folded: string, tokens: readonly string[]): string {
  // A currency sign stays, the number after it is read as any other ("$60k" as "$60000").
  if (CURRENCY.test(folded)) return `${folded[0]}${bareNumber(folded.slice(1), tokens)}`;
  const suffixed = SUFFIXED.exec(folded);
  const scaled = suffixed === null ? null : multiplyOut(suffixed[1] ?? "", UNITS.get(suffixed[2] ?? ""));
  if (scaled !== null) return scaled;
  const bare = folded.replace(BARE_SUFFIX, "$1");
  const at = tokens.indexOf(bare);
  return (at >= 0 && multiplyOut(bare, unitOf(tokens[at + 1]))) || bare;
}

/** Scale words standing for a number on their own ("a thousand bucks", "a hundred people", "a dozen
 * eggs"), as the number they mean, so "a thousand" and "a hundred" differ and "a thousand" and
 * "1000" agree. After a digit the number token already carries the scale (bareNumber, quantities);
 * after a number word ("two hundred") the pair is kept as one fact ("2e2"), so "two hundred" and
 * "two thousand" differ. "k" and the glued Korean scales are left to the number they follow. */
export function scaleWordNumbers(tokens: readonly string[], numberWord: (t: string) => string | undefined): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    const scale = LONE_SCALES.get(t) ?? UNITS.get(t);
    if (scale === undefined || t === "k" || !(scale === "e2" || scale === "e3" || scale === "e6" || scale === "e9" || scale === "12")) continue;
    const prev = tokens[i - 1];
    if (prev !== undefined && HAS_DIGIT.test(prev)) continue;
    const word = prev === undefined ? undefined : numberWord(prev);
    out.push(word !== undefined ? `${word}${scale}` : scale === "12" ? "12" : (multiplyOut("1", scale) ?? scale));
  }
  return out;
}

const LONE_SCALES: ReadonlyMap<string, string> = new Map([["hundred", "e2"], ["hundreds", "e2"], ["dozen", "12"], ["dozens", "12"], ["thousands", "e3"]]);
