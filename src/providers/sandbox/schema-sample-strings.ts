// Sandbox provider: scalar helpers for schema-sample.ts: the seeded PRNG, plausible text chosen by
// property name, `format` samples, a sampler for simple `pattern` regexes, and bounded numbers.

export type Rng = () => number;

/** mulberry32: a tiny deterministic PRNG; returns floats in [0, 1). */
export function mulberry32(seed: number): Rng {
  let a = (Number.isFinite(seed) ? Math.trunc(seed) : 0) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const randInt = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
export const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
export const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[randInt(rng, 0, xs.length - 1)] as T;

// Checked in order against the property name; the first match supplies the candidates.
const TEXT_BY_KEY: ReadonlyArray<readonly [RegExp, readonly string[]]> = [
  [/first_?name|given_?name/i, ["Ada", "Alan", "Grace", "Katherine"]],
  [/last_?name|surname|family_?name/i, ["Lovelace", "Turing", "Hopper", "Johnson"]],
  [/^(full_?)?name$|author|person|user(_?name)?$|customer|participant|attendee|speaker|owner/i,
    ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Katherine Johnson", "Edsger Dijkstra"]],
  [/e_?mail/i, ["ada.lovelace@example.com", "alan.turing@example.org"]],
  [/url|link|website|href|homepage/i, ["https://example.com", "https://example.org/docs"]],
  [/phone|mobile|tel/i, ["+1-555-0100", "+1-555-0142"]],
  [/country/i, ["France", "Japan", "Canada", "Brazil"]],
  [/city|location|place|venue|address|region/i, ["San Francisco, CA", "London, UK", "Paris, France", "Tokyo, Japan"]],
  [/company|organi[sz]ation|employer|institution|affiliation|publisher/i, ["Example Corp", "Acme Labs", "Initech"]],
  [/step|reasoning|thought|explanation/i, ["Subtract 7 from both sides.", "Divide both sides by 8.", "Simplify the expression."]],
  [/title|headline|subject|heading/i, ["Quarterly planning review", "Notes on the Analytical Engine", "Project kickoff"]],
  [/summary|description|abstract|content|text|body|message|comment|note|detail/i,
    ["This is a short sample description.", "A concise summary of the main points.", "Sample text for testing."]],
  [/answer|output|result|solution|response/i, ["x = -3.75", "42", "The answer is 4."]],
  [/question|query|prompt/i, ["What is the capital of France?", "How does this work?"]],
  [/(^|_)id$|identifier|^id_/i, ["id_1024", "id_2048", "id_4096"]],
  [/date|day/i, ["2024-03-15", "2024-07-01"]],
  [/time/i, ["09:30", "14:00"]],
  [/lang|locale/i, ["en", "fr", "ja"]],
  [/currency/i, ["USD", "EUR", "JPY"]],
  [/colou?r/i, ["blue", "green", "red"]],
  [/status|state/i, ["active", "pending", "completed"]],
  [/label|tag|category|keyword|topic|type|kind|role/i, ["general", "example", "featured"]],
];
const GENERIC_TEXT = ["sample text", "example value", "placeholder text"] as const;

/** Plausible text for a property named `key` (generic sample text when the name says nothing). */
export function textFor(key: string, rng: Rng): string {
  const hit = TEXT_BY_KEY.find(([re]) => re.test(key));
  return pick(rng, hit ? hit[1] : GENERIC_TEXT);
}

/** Pads with filler words / truncates so that min <= length <= max (ASCII text, so length = code points). */
export function fitLength(s: string, min: number, max: number | undefined): string {
  let out = s;
  while (out.length < min) out += out.length === 0 ? "sample" : " sample";
  if (max !== undefined && out.length > max) {
    out = out.slice(0, max);
    if (out.trimEnd().length >= min) out = out.trimEnd();
  }
  return out;
}

const p2 = (n: number): string => String(n).padStart(2, "0");

/** A sample for a JSON Schema `format`, or undefined for formats it does not know. */
export function formatSample(format: string, rng: Rng): string | undefined {
  const date = `2024-${p2(randInt(rng, 1, 12))}-${p2(randInt(rng, 1, 28))}`;
  const time = `${p2(randInt(rng, 8, 17))}:${p2(pick(rng, [0, 15, 30, 45]))}:00Z`;
  const n = randInt(rng, 1, 254);
  const hex = (len: number): string => Array.from({ length: len }, () => randInt(rng, 0, 15).toString(16)).join("");
  switch (format) {
    case "date-time": return `${date}T${time}`;
    case "date": return date;
    case "time": return time;
    case "email": case "idn-email": return pick(rng, ["ada.lovelace@example.com", "alan.turing@example.org", "grace.hopper@example.net"]);
    case "uri": case "url": case "iri": return `https://example.com/resources/${n}`;
    case "uri-reference": case "iri-reference": return `/resources/${n}`;
    case "uri-template": return "https://example.com/resources/{id}";
    case "uuid": return `${hex(8)}-${hex(4)}-4${hex(3)}-${pick(rng, ["8", "9", "a", "b"])}${hex(3)}-${hex(12)}`;
    case "ipv4": return `192.0.2.${n}`;
    case "ipv6": return `2001:db8::${n.toString(16)}`;
    case "hostname": case "idn-hostname": return pick(rng, ["api.example.com", "example.org", "mail.example.net"]);
    case "duration": return `P${randInt(rng, 1, 30)}D`;
    case "json-pointer": return `/items/${n}`;
    case "relative-json-pointer": return "0";
    case "regex": return "^[a-z]+$";
    default: return undefined;
  }
}

export function safeRegExp(pattern: string): RegExp | undefined {
  for (const flags of ["u", ""]) {
    try { return new RegExp(pattern, flags); } catch { /* try the next flag set */ }
  }
  return undefined;
}

const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const WORD = LOWER + DIGITS;
const CLASS_ESCAPES: Record<string, string> = { d: DIGITS, w: WORD, s: " ", D: LOWER, W: "-", S: LOWER };
const LITERAL_ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", f: "\f", v: "\v", "0": "\0" };

/**
 * Generates a string for a *simple* regex (each quantifier repeats lo+stretch .. lo+stretch+2 times, within
 * its bounds): literals, escapes (\d \w \s ...), classes with ranges and
 * negation, groups with alternation, quantifiers (? * + {n} {n,} {n,m}) and anchors. Lookarounds are
 * skipped and backreferences produce nothing, so results for such patterns may not match; callers
 * verify with RegExp and fall back.
 */
export function sampleRegex(pattern: string, rng: Rng, stretch = 0): string {
  let i = 0;
  const alternation = (): string => {
    const options = [sequence()];
    while (pattern[i] === "|") { i++; options.push(sequence()); }
    return pick(rng, options);
  };
  const sequence = (): string => {
    let out = "";
    while (i < pattern.length && pattern[i] !== "|" && pattern[i] !== ")") {
      const start = i;
      atom();
      const [lo, hi] = quantifier();
      const end = i;
      const count = randInt(rng, Math.min(hi, lo + stretch), Math.min(hi, lo + stretch + 2));
      for (let k = 0; k < count; k++) { i = start; out += atom(); }
      i = end;
    }
    return out;
  };
  const quantifier = (): [number, number] => {
    const c = pattern[i];
    let q: [number, number] = [1, 1];
    const braces = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
    if (c === "?") q = [0, 1];
    else if (c === "*") q = [0, Infinity];
    else if (c === "+") q = [1, Infinity];
    else if (braces) {
      const lo = Number(braces[1]);
      q = [lo, braces[2] === undefined ? lo : braces[3] ? Number(braces[3]) : Infinity];
      i += braces[0].length - 1;
    } else return q;
    i++;
    if (pattern[i] === "?") i++; // lazy modifier
    return q;
  };
  const escape = (): string => {
    const c = pattern[i++] ?? "";
    const u = /^u([0-9a-fA-F]{4})/.exec(pattern.slice(i - 1));
    if (u?.[1]) { i += 4; return String.fromCharCode(parseInt(u[1], 16)); }
    if (CLASS_ESCAPES[c] !== undefined) return pick(rng, [...CLASS_ESCAPES[c]]);
    if (c === "b" || c === "B" || /\d/.test(c)) return ""; // word boundaries; backreferences are unsupported
    return LITERAL_ESCAPES[c] ?? c;
  };
  const charClass = (): string => {
    const negated = pattern[i] === "^";
    if (negated) i++;
    const pool: string[] = [];
    while (i < pattern.length && pattern[i] !== "]") {
      let c = pattern[i++] ?? "";
      if (c === "\\") c = escapeInClass();
      if (pattern[i] === "-" && pattern[i + 1] !== "]" && i + 1 < pattern.length && c.length === 1) {
        i++;
        let end = pattern[i++] ?? c;
        if (end === "\\") end = escapeInClass();
        for (let code = c.charCodeAt(0); code <= end.charCodeAt(0) && pool.length < 512; code++) pool.push(String.fromCharCode(code));
      } else pool.push(...c);
    }
    i++; // closing ]
    if (!negated) return pool.length ? pick(rng, pool) : "";
    const allowed = [...(WORD + "-_ ")].filter((ch) => !pool.includes(ch));
    return allowed.length ? pick(rng, allowed) : "";
  };
  const escapeInClass = (): string => {
    const c = pattern[i++] ?? "";
    return CLASS_ESCAPES[c] ?? LITERAL_ESCAPES[c] ?? c;
  };
  const atom = (): string => {
    const c = pattern[i++] ?? "";
    if (c === "^" || c === "$") return "";
    if (c === "\\") return escape();
    if (c === "[") return charClass();
    if (c === ".") return pick(rng, [...LOWER]);
    if (c !== "(") return c;
    let skip = false;
    if (pattern[i] === "?") {
      const head = /^\?(<=|<!|=|!|:|<[A-Za-z_]\w*>)/.exec(pattern.slice(i));
      skip = ["=", "!", "<=", "<!"].includes(head?.[1] ?? ":"); // lookarounds consume nothing
      i += head ? head[0].length : 1;
    }
    const inner = alternation();
    i++; // closing )
    return skip ? "" : inner;
  };
  let out = "";
  while (i < pattern.length) {
    out += alternation();
    if (pattern[i] === ")") i++; // stray ) - keep going
  }
  return out;
}

// Strings known to match many common patterns; used when the sampler's output does not match.
const PATTERN_FALLBACKS = [
  "sample", "abc", "ABC", "Sample", "abc123", "ABC123", "a1", "A1", "123", "0", "a", "A", "sample_text", "sample-text",
  "123-4567", "555-123-4567", "+15551234567", "2024-01-15", "12:30", "ada@example.com", "https://example.com",
  "Passw0rd!", "AB-1234", "#a1b2c3", "v1.2.3", "1.0.0",
];

/**
 * A string matching `pattern` within the length bounds: `base` if it already matches, else a known
 * plausible fallback that matches, else output of sampleRegex (several tries). Limit: patterns using lookarounds,
 * backreferences or intersecting constraints may yield a non-matching string (best effort).
 */
export function patternString(pattern: string, rng: Rng, min: number, max: number | undefined, base: string): string {
  const re = safeRegExp(pattern);
  if (!re) return base;
  const ok = (s: string): boolean => re.test(s) && [...s].length >= min && (max === undefined || [...s].length <= max);
  if (ok(base)) return base;
  const known = PATTERN_FALLBACKS.filter(ok); // plausible words beat sampled characters
  if (known.length) return pick(rng, known);
  let first: string | undefined;
  for (let attempt = 0; attempt < 12; attempt++) {
    const s = sampleRegex(pattern, rng, attempt < 4 ? 0 : Math.ceil(((attempt - 3) * Math.max(min, 4)) / 8));
    first ??= s;
    if (ok(s)) return s;
  }
  return first ?? base;
}

/** A number within the schema's bounds (minimum/maximum, exclusive*, multipleOf); [0, 100] when unbounded. */
export function numberFromSchema(s: Record<string, unknown>, integer: boolean, rng: Rng): number {
  const draft4 = (b: unknown, bound: unknown): number | undefined => (b === true ? num(bound) : num(b));
  const min = num(s.minimum), max = num(s.maximum);
  const xmin = draft4(s.exclusiveMinimum, s.minimum), xmax = draft4(s.exclusiveMaximum, s.maximum);
  const mult = (num(s.multipleOf) ?? 0) > 0 ? num(s.multipleOf) : undefined;
  const ok = (v: number): boolean => Number.isFinite(v) && !(min !== undefined && v < min) && !(max !== undefined && v > max) &&
    !(xmin !== undefined && v <= xmin) && !(xmax !== undefined && v >= xmax) && (!integer || Number.isInteger(v)) &&
    (mult === undefined || Number.isInteger(v / mult));
  let lo = Math.max(min ?? -Infinity, xmin ?? -Infinity), hi = Math.min(max ?? Infinity, xmax ?? Infinity);
  if (!Number.isFinite(lo) && !Number.isFinite(hi)) [lo, hi] = [0, 100];
  else if (!Number.isFinite(lo)) lo = hi - 100;
  else if (!Number.isFinite(hi)) hi = lo + 100;
  const unit = mult ?? (integer ? 1 : 0.01);
  const kLo = Math.ceil(lo / unit), kHi = Math.max(kLo, Math.min(Math.floor(hi / unit), kLo + 1e9));
  const round = (x: number): number => Number(x.toPrecision(12));
  const k0 = randInt(rng, kLo, kHi);
  for (let d = 0; d <= 60; d++) {
    for (const k of [k0 + d, k0 - d, kLo + d, kHi - d]) if (k >= kLo && k <= kHi && ok(round(k * unit))) return round(k * unit);
  }
  const fallback = [lo, hi, Math.ceil(lo), Math.floor(hi), (lo + hi) / 2, 0].find(ok);
  return fallback ?? (Number.isFinite(lo) ? lo : 0);
}

/** A string for a schema without enum/const: format sample or plausible text, fitted to length and pattern. */
export function stringFromSchema(s: Record<string, unknown>, rng: Rng, key: string): string {
  const min = num(s.minLength) ?? 0, max = num(s.maxLength);
  const fmt = typeof s.format === "string" ? formatSample(s.format, rng) : undefined;
  const fmtFits = fmt !== undefined && fmt.length >= min && (max === undefined || fmt.length <= max);
  const base = fmtFits ? fmt : fitLength(fmt ?? textFor(key, rng), min, max);
  return typeof s.pattern === "string" ? patternString(s.pattern, rng, min, max, base) : base;
}
