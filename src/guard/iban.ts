// IBANs (ISO 13616) at a word start: two capital letters and two check digits open it (the cheap
// pre-check the scanner runs before anything else), the country fixes its length, and mod-97
// decides. Printed form with single spaces or dashes ("DE89 3704 0044 0532 0130 00") and electronic form.
import { ibanValid } from "./checksums.ts";

/** Lengths per country (SWIFT IBAN registry). Unknown countries are not IBANs. */
const LENGTHS: Readonly<Record<string, number>> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BI: 27, BR: 29, BY: 28, CH: 21,
  CR: 22, CY: 28, CZ: 24, DE: 22, DJ: 27, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FK: 18, FO: 18,
  FR: 27, GB: 22, GE: 22, GI: 23, GL: 18, GR: 27, GT: 28, HN: 28, HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23,
  IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20, LV: 21, LY: 25, MC: 27,
  MD: 24, ME: 22, MK: 19, MN: 20, MR: 27, MT: 31, MU: 30, NI: 28, NL: 18, NO: 15, OM: 23, PK: 24, PL: 28,
  PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, RU: 33, SA: 24, SC: 31, SD: 18, SE: 24, SI: 19, SK: 24, SM: 27,
  SO: 23, ST: 25, SV: 28, TL: 23, TN: 24, TR: 26, UA: 29, VA: 22, VG: 24, XK: 20, YE: 30,
};

const isUpper = (c: number) => c >= 65 && c <= 90;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isAlnum = (c: number) => isDigit(c) || isUpper(c) || (c >= 97 && c <= 122);

/** An IBAN-shaped run at `i` (a word start): where it ends, and whether it is an IBAN. A run that
 * fails its checks is still skipped whole by the scanner, so its digits are not read again as a
 * card number. Null when `i` does not open one (no country with check digits). */
export function ibanAt(text: string, i: number): { end: number; valid: boolean } | null {
  if (!isUpper(text.charCodeAt(i + 1)) || !isDigit(text.charCodeAt(i + 2)) || !isDigit(text.charCodeAt(i + 3))) return null;
  const length = LENGTHS[text.slice(i, i + 2)];
  if (length === undefined) return null;
  let compact = text.slice(i, i + 4);
  let j = i + 4;
  while (compact.length < length && j < text.length) {
    const c = text.charCodeAt(j);
    // One space (or dash) between groups; anything else ends the number early (and fails the length).
    if ((c === 32 || c === 45) && isAlnum(text.charCodeAt(j + 1))) {
      j++;
      continue;
    }
    if (!isDigit(c) && !isUpper(c)) break;
    compact += text[j];
    j++;
  }
  const whole = compact.length === length && !(j < text.length && isAlnum(text.charCodeAt(j)));
  return { end: j, valid: whole && ibanValid(compact) };
}
