// The detector (docs/guard.md "What is found"): one pass over a text. Only an `@` or a word start
// that can open a finding leads to a closer look; findings come out in order, without overlap.
import { emailAt } from "./email.ts";
import { ibanAt } from "./iban.ts";
import type { Finding, Wanted } from "./kinds.ts";
import { isWordChar, numberAt } from "./numbers.ts";
import { mayOpenSecret, SECRET_FIRST, secretAt } from "./secrets.ts";

// Character classes, one lookup per character: WORD continues a word; the rest can open a look.
const WORD = 1;
const AT = 2;
const NUMBER = 4; // a digit, `+` or `(`
const UPPER = 8; // an IBAN's country code
const SECRET = 16; // the first character of a secret's prefix
const ESCAPE = 32; // a backslash: an escaped newline in JSON text (tool arguments) ends a word
const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  CLASS[c] = (isWordChar(c) ? WORD : 0) | (c === 64 ? AT : 0) | (/[\d+(]/.test(ch) ? NUMBER : 0) | (/[A-Z]/.test(ch) ? UPPER : 0)
    | (SECRET_FIRST.includes(ch) ? SECRET : 0) | (c === 92 ? ESCAPE : 0);
}

/** The hot path as one table: index (wordStart ? 128 : 0) + character; 0 = look closer, else
 * 1 + the next index base (a word continues, or a character that opens nothing is passed). Per
 * policy, the classes that open nothing it looks for count as none (without pii, `@` and digits
 * lead to no closer look; without secrets, a secret's first letter does not). */
function stepTable(ignored: number): Uint8Array {
  const step = new Uint8Array(256);
  for (let c = 0; c < 128; c++) {
    const cls = CLASS[c]! & ~ignored;
    const next = (cls & WORD) === 0 ? 128 : 0;
    if ((cls & WORD) !== 0 || cls === 0) step[c] = 1 + next;
    if ((cls & ~WORD) === 0) step[128 + c] = 1 + next;
  }
  return step;
}
const STEP_ALL = stepTable(0);
const STEP_SECRETS = stepTable(AT | NUMBER | UPPER);
const STEP_PII = stepTable(SECRET);

const isUpper = (c: number) => c >= 65 && c <= 90;

/** Drops findings an e-mail address overlaps (digits of its local part read as a number). */
function pushEmail(out: Finding[], start: number, end: number): void {
  while (out.length > 0 && out[out.length - 1]!.end > start) out.pop();
  out.push({ kind: "email", start, end });
}

/** Stops once `limit` findings are out (the guard's per-request cap: past it, a request is refused
 * rather than redacted, so a text dense with findings cannot hold the event loop). */
export function detect(text: string, want: Wanted, limit = Infinity): Finding[] {
  const out: Finding[] = [];
  if (!want.pii && !want.secrets) return out;
  const pii = want.pii;
  const secrets = want.secrets;
  const STEP = pii ? (secrets ? STEP_ALL : STEP_PII) : STEP_SECRETS;
  const n = text.length;
  let wordStart = true;
  let i = 0;
  while (i < n && out.length < limit) {
    // The hot path: inside a word, or at a character that opens nothing (non-ASCII ends a word).
    // It adds no finding, so the limit is checked only after a closer look.
    let base = wordStart ? 128 : 0;
    let c = text.charCodeAt(i);
    for (;;) {
      if (c >= 128) base = 128;
      else {
        const step = STEP[base + c]!;
        if (step === 0) break;
        base = step - 1;
      }
      if (++i >= n) return out;
      c = text.charCodeAt(i);
    }
    wordStart = base === 128;
    const cls = CLASS[c]!;
    if (cls === ESCAPE) {
      // Skip the escape's letter, so `\nsk-...` or `\n-----BEGIN` still starts a word.
      i += isWordChar(text.charCodeAt(i + 1)) ? 2 : 1;
      wordStart = true;
      continue;
    }
    if (cls === AT) {
      const found = pii ? emailAt(text, i) : null;
      const last = out[out.length - 1];
      if (found && (!last || last.kind !== "secret" || last.end <= found.start)) {
        pushEmail(out, found.start, found.end);
        i = found.end;
        wordStart = false;
        continue;
      }
    } else if (wordStart) {
      let next = -1;
      if (secrets && (cls & SECRET) !== 0 && mayOpenSecret(text, i, c)) {
        const found = secretAt(text, i, c);
        if (found) {
          out.push(found);
          next = found.end;
        }
      }
      if (next < 0 && pii) {
        if ((cls & NUMBER) !== 0) {
          const before = out.length;
          const end = numberAt(text, i, out);
          // A number that is not one of ours is skipped whole, so its digits are not read again.
          if (out.length > before || end > i + 1) next = end;
        } else if ((cls & UPPER) !== 0 && isUpper(text.charCodeAt(i + 1))) {
          const iban = ibanAt(text, i);
          if (iban) {
            if (iban.valid) out.push({ kind: "iban", start: i, end: iban.end });
            next = iban.end;
          }
        }
      }
      if (next > i) {
        i = next;
        wordStart = !isWordChar(text.charCodeAt(i - 1));
        continue;
      }
    }
    wordStart = (cls & WORD) === 0;
    i++;
  }
  return out;
}
