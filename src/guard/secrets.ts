// Credentials by their shapes (docs/guard.md "What is found"): a sticky regex per rule, tried only
// where a word starts with a known prefix, so a clean text runs none.
import type { Finding } from "./kinds.ts";
import { privateKeyAt } from "./private-key.ts";

interface Rule {
  /** Checked with startsWith before the regex runs (lower-case when `ci`). */
  prefix: string;
  ci?: boolean;
  re: RegExp;
  /** The capture group that is the secret (the rest is context, e.g. "Bearer "); 0 = all. */
  group?: number;
  /** The secret must hold a digit (random keys do; words joined by dashes do not). */
  digit?: boolean;
  check?: (value: string) => boolean;
}

const AWS_SECRET = /((?:aws[_ ]?)?secret[_ ]?access[_ ]?key["']?\s*[:=]\s*["']?)([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/iy;

/** Rules by the code of their first character. */
const RULES: Readonly<Record<string, readonly Rule[]>> = {
  s: [
    { prefix: "sk-", re: /sk-[A-Za-z0-9_-]{20,}/y, digit: true }, // OpenAI (sk-, sk-proj-), Anthropic (sk-ant-)
    { prefix: "sk_", re: /sk_(?:live|test)_[A-Za-z0-9]{16,}/y }, // Stripe
    { prefix: "secret", ci: true, re: AWS_SECRET, group: 2 },
  ],
  r: [{ prefix: "rk_", re: /rk_(?:live|test)_[A-Za-z0-9]{16,}/y }],
  a: [{ prefix: "aws", ci: true, re: AWS_SECRET, group: 2 }],
  A: [
    { prefix: "AKIA", re: /AKIA[0-9A-Z]{16}(?![0-9A-Za-z])/y },
    { prefix: "ASIA", re: /ASIA[0-9A-Z]{16}(?![0-9A-Za-z])/y },
    { prefix: "AIza", re: /AIza[0-9A-Za-z_-]{35}/y },
    { prefix: "aws", ci: true, re: AWS_SECRET, group: 2 },
  ],
  S: [{ prefix: "secret", ci: true, re: AWS_SECRET, group: 2 }],
  g: [
    { prefix: "gh", re: /gh[pousr]_[A-Za-z0-9]{30,}/y },
    { prefix: "github_pat_", re: /github_pat_[A-Za-z0-9_]{22,}/y },
    { prefix: "gw_", re: /gw_(?:live|test)_[0-9a-z]{20,}/y },
  ],
  x: [{ prefix: "xox", re: /xox[bpars]-[A-Za-z0-9-]{10,}/y }],
  e: [{ prefix: "eyJ", re: /eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/y, check: jwtHeader }],
  B: [{ prefix: "bearer", ci: true, re: /bearer[ \t]+([A-Za-z0-9._~+/=-]{20,})/iy, group: 1, digit: true }],
  b: [{ prefix: "bearer", ci: true, re: /bearer[ \t]+([A-Za-z0-9._~+/=-]{20,})/iy, group: 1, digit: true }],
};

/** Every character a rule (or a PEM block) starts with. */
export const SECRET_FIRST = `${Object.keys(RULES).join("")}-`;

/** The rules by first character code, and the first two characters any rule (or a PEM block)
 * can open with, case folded where the rule ignores case: the scanner's per-word-start check, so
 * that ordinary words ("so", "are", "get") cost one table lookup and no call. */
const BY_CODE: Array<readonly Rule[] | undefined> = [];
const PAIRS = new Uint8Array(1 << 14);
const pair = (a: number, b: number) => ((a & 0x7f) << 7) | (b & 0x7f);
const cases = (ch: string, ci: boolean) => (ci ? [ch.toLowerCase(), ch.toUpperCase()] : [ch]);
for (const [first, rules] of Object.entries(RULES)) {
  BY_CODE[first.charCodeAt(0)] = rules;
  for (const r of rules) {
    for (const a of cases(r.prefix[0]!, r.ci === true)) for (const b of cases(r.prefix[1]!, r.ci === true)) PAIRS[pair(a.charCodeAt(0), b.charCodeAt(0))] = 1;
  }
}
PAIRS[pair(45, 45)] = 1; // "--" of "-----BEGIN"

/** Whether a rule may start at `i` (ASCII `c` is text[i]): cheap, and false for almost every word. */
export const mayOpenSecret = (text: string, i: number, c: number): boolean => PAIRS[pair(c, text.charCodeAt(i + 1))] === 1;

/** Three base64url parts whose first decodes to a JSON object naming an `alg`. */
function jwtHeader(token: string): boolean {
  try {
    const header: unknown = JSON.parse(Buffer.from(token.slice(0, token.indexOf(".")), "base64url").toString("utf8"));
    return typeof header === "object" && header !== null && typeof (header as { alg?: unknown }).alg === "string";
  } catch {
    return false;
  }
}

function startsWithCi(text: string, prefix: string, i: number): boolean {
  if (i + prefix.length > text.length) return false;
  for (let k = 0; k < prefix.length; k++) if ((text.charCodeAt(i + k) | 0x20) !== prefix.charCodeAt(k)) return false;
  return true;
}

const hasDigit = (s: string) => /\d/.test(s);

/** A secret or private key starting at `i` (a word start), or null. */
export function secretAt(text: string, i: number, c: number): Finding | null {
  if (c === 45) return privateKeyAt(text, i);
  const rules = BY_CODE[c];
  if (!rules) return null;
  for (const rule of rules) {
    if (!(rule.ci ? startsWithCi(text, rule.prefix, i) : text.startsWith(rule.prefix, i))) continue;
    rule.re.lastIndex = i;
    const m = rule.re.exec(text);
    if (!m) continue;
    const value = m[rule.group ?? 0]!;
    if ((rule.digit && !hasDigit(value)) || (rule.check && !rule.check(value))) continue;
    const start = i + m[0].length - value.length;
    return { kind: "secret", start, end: start + value.length };
  }
  return null;
}
