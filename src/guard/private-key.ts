// PEM and PGP private key blocks (docs/guard.md "What is found"), BEGIN to END line; a block cut
// off before its END runs as far as key material can and stops at a quote.
import type { Finding } from "./kinds.ts";

const BEGIN = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/y;
const END = /-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g;
const BODY = /(?:[A-Za-z0-9+/=:,\- \t\r\n]|\\[nrt])*/y;

export function privateKeyAt(text: string, i: number): Finding | null {
  if (!text.startsWith("-----BEGIN ", i)) return null;
  BEGIN.lastIndex = i;
  const begin = BEGIN.exec(text);
  if (!begin) return null;
  const from = i + begin[0].length;
  END.lastIndex = from;
  const end = END.exec(text);
  if (end) return { kind: "private_key", start: i, end: end.index + end[0].length };
  BODY.lastIndex = from;
  const body = BODY.exec(text);
  let stop = from + (body ? body[0].length : 0);
  while (stop > from && /\s/.test(text[stop - 1]!)) stop--; // trailing whitespace is not the key's
  return { kind: "private_key", start: i, end: stop };
}
