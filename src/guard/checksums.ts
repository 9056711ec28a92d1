// The checksums that separate real card numbers and IBANs from numbers of the same shape
// (docs/guard.md): Luhn (ISO/IEC 7812) and ISO 13616's mod-97. A random digit string passes
// Luhn one time in ten and mod-97 one time in 97, so the shape checks in front of them matter too.

/** Luhn over a string of ASCII digits. */
export function luhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Adds one IBAN character (digit, or letter as 10..35) to a running mod-97 remainder. */
function step(rem: number, c: number): number {
  if (c >= 48 && c <= 57) return (rem * 10 + (c - 48)) % 97;
  const v = (c | 0x20) - 87; // 'a'/'A' -> 10
  return (rem * 100 + v) % 97;
}

/** ISO 13616: the country code and check digits move to the end; the number mod 97 is 1.
 * `iban` holds letters and digits only (no spaces). */
export function ibanValid(iban: string): boolean {
  let rem = 0;
  for (let i = 4; i < iban.length; i++) rem = step(rem, iban.charCodeAt(i));
  for (let i = 0; i < 4; i++) rem = step(rem, iban.charCodeAt(i));
  return rem === 1;
}
