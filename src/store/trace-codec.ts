// How a trace is stored (docs/observability.md "Trace storage"): short keys, and the objects every
// trace repeats as tuples in a fixed key order; decoding gives back the same object, key for key.
// Traces stored before this (no "~" key) decode as they are.
import type { JsonObject } from "../lib/json.ts";
import { reasonNotesOf, reasonSentences } from "./trace-reasons.ts";

/** Format 2: format 1's layout, with `reasons` stored as notes (trace-reasons.ts) that decode to
 * their sentences and common exclusions as numbers (EXCLUDED). Format 3: format 2 with spans as
 * [name index, start, duration] (spansInMicros: times in whole microseconds, which JSON.stringify
 * writes in about half the time of fractions), and a candidate excluded for a common reason as
 * [model, its EXCLUDED index]; a trace whose spans do not fit, or without spans, is stored as
 * format 2. Key lists below never change once released: a new layout is format 4. */
const FORMAT = 3;

const TOP: Record<string, string> = {
  spans: "s", parent_span_id: "p", detected: "d", profile: "pf", workload: "w", required_quality: "rq", weights: "wt",
  candidates: "c", reasons: "rs", expected: "e", health: "h", session: "ss", workflow_budget: "wb", reason: "r",
  attempts: "a", timings: "t", error: "er", optimization: "o", cache: "ch", tools: "tl", usage_estimated: "ue",
  client_disconnected: "cd", byok: "b", billing: "bl", guard: "g", versions: "v", sampled: "sm",
};
const FROM_TOP: Record<string, string> = Object.fromEntries(Object.entries(TOP).map(([k, v]) => [v, k]));
/** Each top-level key's place in TOP (encodeInOrder's literal follows it). */
const TOP_INDEX: Record<string, number> = Object.fromEntries(Object.keys(TOP).map((k, i) => [k, i]));

/** Key orders of the tuple forms (format 1). */
const TUPLES: Record<string, readonly string[]> = {
  detected: ["task", "subtype", "source", "input_tokens_bound", "language", "complexity", "live_data", "personal", "entities"],
  cache: ["result", "kind", "similarity?", "miss_reason", "semantic", "stored?"],
  optimization: ["mode", "original_tokens", "final_tokens", "stages"],
  billing: ["mode", "reserved", "charge", "notes"],
  versions: ["gateway", "api", "router", "intelligence", "catalog", "cache", "semantic_cache", "token_engine", "guard"],
};
const ATTEMPT = ["model", "provider", "status", "error_code", "failure_class", "upstream_status", "duration_ms", "byok"] as const;

type Json = JsonObject[string];
type Obj = Record<string, Json>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** The object's defined values, when its keys follow `keys` in that order. A key written `name?`
 * may be absent anywhere (stored as null; so a null value there does not fit); other keys may only
 * be absent at the end. */
function toTuple(v: unknown, keys: readonly string[]): Json[] | null {
  if (!isObj(v)) return null;
  const out: Json[] = [];
  for (const k in v) {
    if (v[k] === undefined) continue;
    while (out.length < keys.length && keys[out.length]!.endsWith("?") && keys[out.length] !== `${k}?`) out.push(null);
    const want = keys[out.length];
    if (want !== k && (want !== `${k}?` || v[k] === null)) return null;
    out.push(v[k]!);
  }
  return out;
}

function fromTuple(t: Json[], keys: readonly string[]): Obj {
  const o: Obj = {};
  for (let i = 0; i < t.length; i++) {
    const k = keys[i]!;
    if (!k.endsWith("?")) o[k] = t[i]!;
    else if (t[i] !== null) o[k.slice(0, -1)] = t[i]!;
  }
  return o;
}

/** A time in ms as whole microseconds, when that is exact (round3's values are), else null. */
function micros(ms: Json | undefined): number | null {
  if (typeof ms !== "number") return null;
  const us = Math.round(ms * 1000);
  return Number.isFinite(us) && us / 1000 === ms ? us : null;
}

/** Span names stored as their index here (format 3); never reordered, a new one goes at the end. */
const SPAN_NAMES: readonly string[] = [
  "request", "authentication", "parse", "guard", "analysis", "rate_limit", "cache", "optimization", "routing", "reserve",
  "llm", "idempotency", "call",
];
const SPAN_INDEX = new Map(SPAN_NAMES.map((name, i) => [name, i]));

/** Stored spans [name, start, duration, error, attributes?] in format 3: a known name as its
 * SPAN_NAMES index, the times in whole microseconds, a null error left out when nothing follows
 * it; null when a span does not fit (the trace is then format 2). */
function spansInMicros(v: Json): Json[] | null {
  if (!Array.isArray(v)) return null;
  const out: Json[] = new Array<Json>(v.length);
  for (let i = 0; i < v.length; i++) {
    const span = v[i];
    if (!Array.isArray(span) || span.length < 4 || typeof span[0] !== "string") return null;
    const start = micros(span[1]);
    const duration = micros(span[2]);
    if (start === null || duration === null) return null;
    const name = SPAN_INDEX.get(span[0]) ?? span[0];
    // The usual span (no attributes) as a literal: cheaper than a copy.
    if (span.length === 4) out[i] = span[3] === null ? [name, start, duration] : [name, start, duration, span[3]!];
    else {
      const t = span.slice();
      t[0] = name;
      t[1] = start;
      t[2] = duration;
      out[i] = t;
    }
  }
  return out;
}

/** A format 3 span back to [name, start_ms, duration_ms, error, attributes?]. Format 3 traces
 * written before names were indexes and null errors left out read the same way. */
function spanFromMicros(span: Json): Json {
  if (!Array.isArray(span)) return span;
  const t = span.slice();
  if (typeof t[0] === "number") t[0] = SPAN_NAMES[t[0]] ?? t[0];
  t[1] = (t[1] as number) / 1000;
  t[2] = (t[2] as number) / 1000;
  if (t.length === 3) t.push(null);
  return t;
}

/** `versions` is one frozen object of strings in every trace: its tuple, and its text as the
 * stored trace's last key, are made once. */
let versionsMemo: { of: Json; tuple: Json; end: string } = { of: null, tuple: null, end: "}" };

function versionsTuple(v: Json): Json {
  if (versionsMemo.of === v) return versionsMemo.tuple;
  const tuple = toTuple(v, TUPLES.versions!) ?? v;
  if (isObj(v) && Object.isFrozen(v) && Object.values(v).every((x) => typeof x !== "object" || x === null)) {
    versionsMemo = { of: v, tuple, end: `,"v":${JSON.stringify(tuple)}}` };
  }
  return tuple;
}

/** A candidate: [model, provider (0: the model id's prefix), rank (true: its index), score, quality,
 * below (1), excluded (a number: its EXCLUDED entry)]; absent fields are null (below: 0) and cut at
 * the end. Format 3 writes [model, 0, null, null, null, 0, n] as [model, n]. */
const CANDIDATE = ["model", "provider", "rank", "score", "quality", "below_required_quality", "excluded"];

/** Exclusions most traces repeat for many candidates, stored as their index (format 2): the text
 * before and after the candidate's provider. Never reordered; a new one goes at the end. */
const EXCLUDED: readonly (readonly [string, string])[] = [
  ["provider ", " not enabled"],
  ["provider ", " not in the project's allowed_providers"],
  ["provider ", " blocked by the project's policy"],
  ["no project key for ", " (the API key is BYOK only)"],
];

/** The EXCLUDED texts for a provider, made once per provider (a handful): comparing whole
 * strings costs less than matching the parts of each. */
const textsByProvider = new Map<string, string[]>();

/** The EXCLUDED index `why` reads as for this provider, or the text itself. */
function excludedCode(why: string, provider: string): string | number {
  let texts = textsByProvider.get(provider);
  if (!texts) {
    if (textsByProvider.size >= 256) textsByProvider.clear();
    texts = EXCLUDED.map(([before, after]) => `${before}${provider}${after}`);
    textsByProvider.set(provider, texts);
  }
  for (let i = 0; i < texts.length; i++) if (why === texts[i]) return i;
  return why;
}

const excludedText = (code: Json, provider: string): Json => {
  const entry = typeof code === "number" ? EXCLUDED[code] : undefined;
  return entry ? `${entry[0]}${provider}${entry[1]}` : code;
};

/** `short`: the trace is format 3, where [model, n] stands for [model, 0, null, null, null, 0, n]. */
function candidate(c: unknown, index: number, short: boolean): Json {
  if (!isObj(c)) return c as Json;
  // Only the known keys, in the record stage's order, with values the tuple can tell from absent.
  let at = 0;
  for (const k in c) {
    if (c[k] === undefined) continue;
    while (at < CANDIDATE.length && CANDIDATE[at] !== k) at++;
    if (at === CANDIDATE.length) return c;
  }
  const { model, provider, rank, score, quality, below_required_quality: below, excluded } = c;
  if (typeof model !== "string" || typeof provider !== "string" || rank === undefined || below === false || score === null || quality === null || (excluded !== undefined && typeof excluded !== "string")) return c;
  const named = isPrefix(model, provider) ? 0 : provider;
  const ranked = rank === index ? true : rank;
  // Cut after the last field present.
  if (excluded !== undefined) {
    const code = excludedCode(excluded, provider);
    if (short && typeof code === "number" && named === 0 && rank === null && score === undefined && quality === undefined && !below) return [model, code];
    return [model, named, ranked, score ?? null, quality ?? null, below ? 1 : 0, code];
  }
  if (below) return [model, named, ranked, score ?? null, quality ?? null, 1];
  if (quality !== undefined) return [model, named, ranked, score ?? null, quality];
  if (score !== undefined) return [model, named, ranked, score];
  return [model, named, ranked];
}

/** model.slice(0, model.indexOf("/")) === provider, without making the slice. */
function isPrefix(model: string, provider: string): boolean {
  const slash = model.indexOf("/");
  return slash < 0 ? provider === model.slice(0, -1) : slash === provider.length && model.startsWith(provider);
}

/** `format`: from 2 on a number in the excluded slot is an EXCLUDED index; in 3 [model, n] is
 * [model, 0, null, null, null, 0, n]. */
function fromCandidate(t: Json, index: number, format: number): Json {
  if (!Array.isArray(t)) return t;
  const codes = format !== 1;
  const [model, provider, rank, score, quality, below, excluded] = (format === 3 && t.length === 2 ? [t[0], 0, null, null, null, 0, t[1]] : t) as [string, string | 0, Json, Json?, Json?, Json?, Json?];
  const named = provider === 0 ? model.slice(0, model.indexOf("/")) : provider;
  const c: Obj = { model, provider: named, rank: rank === true ? index : rank };
  if (score !== undefined && score !== null) c.score = score;
  if (quality !== undefined && quality !== null) c.quality = quality;
  if (below === 1) c.below_required_quality = true;
  if (excluded !== undefined && excluded !== null) c.excluded = codes ? excludedText(excluded, named) : excluded;
  return c;
}

/** The stored form of a trace (record stage's object); null stays null. */
export function encodeTrace(trace: JsonObject | null): JsonObject | null {
  if (trace === null) return null;
  // Format 3 once the spans fit it: a trace without them stays format 2.
  const out: Obj = { "~": 2 };
  for (const key in trace) {
    let v = trace[key];
    if (v === undefined) continue;
    const short = TOP[key];
    // A key this format does not know is kept, unless it reads as a short key (then nothing is encoded).
    if (!short) {
      if (key in FROM_TOP || key === "~") return trace;
      out[key] = v;
      continue;
    }
    if (key === "spans") {
      const us = spansInMicros(v);
      if (us) {
        v = us;
        out["~"] = FORMAT;
      }
    } else if (key === "candidates" && Array.isArray(v)) {
      const short = out["~"] === FORMAT;
      v = v.map((c, i) => candidate(c, i, short));
    } else if (key === "reasons") v = reasonNotesOf(v);
    else if (key === "attempts" && Array.isArray(v)) v = v.map((a) => toTuple(a, ATTEMPT) ?? a);
    else if (key === "versions") v = versionsTuple(v);
    else if (TUPLES[key]) v = toTuple(v, TUPLES[key]!) ?? v;
    out[short] = v!;
  }
  return out as JsonObject;
}

/** Whether the trace's keys are TOP's, in TOP's order (the record stage's traces are). */
function inTopOrder(trace: JsonObject): boolean {
  let last = -1;
  for (const key in trace) {
    if (trace[key] === undefined) continue;
    const at = TOP_INDEX[key];
    if (typeof at !== "number" || at <= last) return false;
    last = at;
  }
  return true;
}

const tupleOf = (v: Json, keys: readonly string[]): Json => (v === undefined ? undefined : toTuple(v, keys) ?? v);

/** encodeTrace for a trace in TOP's order, as one object literal: a fixed shape is cheaper to
 * make, and to stringify, than an object grown a key at a time. Absent values stay undefined,
 * which JSON.stringify leaves out, so the text is the same. With `withoutVersions`, versions is
 * left out (its text is spliced in). */
function encodeInOrder(t: JsonObject, withoutVersions: boolean): Obj {
  const spans = t.spans === undefined ? null : spansInMicros(t.spans);
  const format = spans ? FORMAT : 2;
  return {
    "~": format, s: spans ?? t.spans, p: t.parent_span_id, d: tupleOf(t.detected, TUPLES.detected!), pf: t.profile,
    w: t.workload, rq: t.required_quality, wt: t.weights,
    c: Array.isArray(t.candidates) ? t.candidates.map((c, i) => candidate(c, i, format === FORMAT)) : t.candidates,
    rs: t.reasons === undefined ? undefined : reasonNotesOf(t.reasons), e: t.expected, h: t.health, ss: t.session,
    wb: t.workflow_budget, r: t.reason, a: Array.isArray(t.attempts) ? t.attempts.map((a) => toTuple(a, ATTEMPT) ?? a) : t.attempts,
    t: t.timings, er: t.error, o: tupleOf(t.optimization, TUPLES.optimization!), ch: tupleOf(t.cache, TUPLES.cache!),
    tl: t.tools, ue: t.usage_estimated, cd: t.client_disconnected, b: t.byok, bl: tupleOf(t.billing, TUPLES.billing!), g: t.guard,
    v: t.versions === undefined || withoutVersions ? undefined : versionsTuple(t.versions), sm: t.sampled,
  };
}

/** JSON.stringify(encodeTrace(trace)), the same text, made with less work. */
export function encodeTraceText(trace: JsonObject): string {
  if (!inTopOrder(trace)) return JSON.stringify(encodeTrace(trace));
  // The memoised versions, last key of the trace (only `sampled` follows it in TOP): its text is
  // spliced in rather than written again; the row's text is one string of pieces anyway.
  if (versionsMemo.of !== null && trace.versions === versionsMemo.of && trace.sampled === undefined) {
    return JSON.stringify(encodeInOrder(trace, true)).slice(0, -1) + versionsMemo.end;
  }
  return JSON.stringify(encodeInOrder(trace, false));
}

/** The record stage's object from its stored form (any format). */
export function decodeTrace(stored: JsonObject | null): JsonObject | null {
  const format = stored?.["~"];
  if (stored === null || (format !== 1 && format !== 2 && format !== 3)) return stored;
  const out: Obj = {};
  for (const short in stored) {
    if (short === "~") continue;
    const key = FROM_TOP[short] ?? short;
    let v = stored[short]!;
    if (key === "spans" && format === 3 && Array.isArray(v)) v = v.map(spanFromMicros);
    else if (key === "candidates" && Array.isArray(v)) v = v.map((t, i) => fromCandidate(t, i, format));
    else if (key === "attempts" && Array.isArray(v)) v = v.map((a) => (Array.isArray(a) ? fromTuple(a, ATTEMPT) : a));
    else if (TUPLES[key] && Array.isArray(v)) v = fromTuple(v, TUPLES[key]!);
    out[key] = v;
  }
  // Sentences need the decoded candidates (the exclusion summary); format 1 stored sentences only.
  if (Array.isArray(out.reasons)) out.reasons = reasonSentences(out.reasons, Array.isArray(out.candidates) ? out.candidates : []);
  return out as JsonObject;
}
