// E-mail addresses, found from their `@` (docs/guard.md): the local part is read backwards, the
// domain forwards; a domain needs a dot and a top-level label of two or more letters, so "@user"
// mentions, decorators and `user@host` without a domain are left alone.

const LOCAL = new Uint8Array(128);
const DOMAIN = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  LOCAL[c] = alnum || "._%+-'".includes(String.fromCharCode(c)) ? 1 : 0;
  DOMAIN[c] = alnum || c === 45 || c === 46 ? 1 : 0;
}
const MAX_LOCAL = 64;
const MAX_DOMAIN = 253;

const isLetter = (c: number) => (c | 0x20) >= 97 && (c | 0x20) <= 122;

/** The address around the `@` at `at`, or null. */
export function emailAt(text: string, at: number): { start: number; end: number } | null {
  let start = at;
  while (start > 0 && at - start < MAX_LOCAL && LOCAL[text.charCodeAt(start - 1)] === 1) start--;
  // JSON text (tool arguments): the letter of an escape (`\nada@...`) is not part of the address.
  if (text.charCodeAt(start - 1) === 92) start++;
  while (start < at && (text.charCodeAt(start) === 46 || text.charCodeAt(start) === 39)) start++; // not a leading dot or quote
  if (start === at) return null;
  let end = at + 1;
  while (end < text.length && end - at <= MAX_DOMAIN && DOMAIN[text.charCodeAt(end)] === 1) end++;
  while (end > at + 1 && (text.charCodeAt(end - 1) === 46 || text.charCodeAt(end - 1) === 45)) end--; // sentence's full stop
  const domain = text.slice(at + 1, end);
  const lastDot = domain.lastIndexOf(".");
  if (lastDot <= 0 || domain.includes("..") || domain.startsWith("-")) return null;
  const tld = domain.slice(lastDot + 1);
  if (tld.length < 2) return null;
  for (let i = 0; i < tld.length; i++) if (!isLetter(tld.charCodeAt(i))) return null;
  return { start, end };
}
