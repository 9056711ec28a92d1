// Numbers as the literal guard compares them (docs/semantic-cache.md "Literal guard"): every token
// holding a digit, thousands separators folded, with its suffix or the unit word after it, so
// "60K" and "6K", "5 km" and "5 miles", "2 billion" and "2 million" all differ.
import { UNITS } from "./guard-words.ts";

const SUFFIXED = /^(\d+(?:[.,]\d+)*)(k|bn|mio|mrd)$/;
const PLAIN = /^\d+(?:[.,]\d+)*$/;
const HAS_DIGIT = /\d/;
const THOUSANDS = /(\d),(?=\d{3}(?:\D|$))/g;

export const foldNumber = (v: string): string => v.toLowerCase().replace(THOUSANDS, "$1").replace(/^#/, "");

/** `tokens`: the question's lowercased words in order ("%" is a token of its own). */
export function quantities(tokens: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    if (!HAS_DIGIT.test(t)) continue;
    const folded = foldNumber(t);
    const suffixed = SUFFIXED.exec(folded);
    if (suffixed !== null) {
      out.push(`${suffixed[1]}${UNITS.get(suffixed[2] ?? "") ?? ""}`);
      continue;
    }
    const unit = PLAIN.test(folded) ? UNITS.get(tokens[i + 1] ?? "") : undefined;
    out.push(unit === undefined ? folded : `${folded}${unit}`);
  }
  return out;
}
