// How a trace is stored (docs/observability.md "Trace storage"): short keys, and the objects every
// trace repeats as tuples in a fixed key order; decoding gives back the same object, key for key.
// Traces stored before this (no "~" key) decode as they are.
import type { JsonObject } from "../lib/json.ts";
import { reasonNotesOf, reasonSentences } from "./trace-reasons.ts";

/** Format 2: format 1's layout, with `reasons` stored as notes (trace-reasons.ts) that decode to
 * their sentences and common exclusions as numbers (EXCLUDED). Key lists below never change once
 * released: a new layout is format 3. */
const FORMAT = 2;

const TOP: Record<string, string> = {
  spans: "s", parent_span_id: "p", detected: "d", profile: "pf", workload: "w", required_quality: "rq", weights: "wt",
  candidates: "c", reasons: "rs", expected: "e", health: "h", session: "ss", workflow_budget: "wb", reason: "r",
  attempts: "a", timings: "t", error: "er", optimization: "o", cache: "ch", tools: "tl", usage_estimated: "ue",
  client_disconnected: "cd", byok: "b", billing: "bl", guard: "g", versions: "v", sampled: "sm",
};
const FROM_TOP: Record<string, string> = Object.fromEntries(Object.entries(TOP).map(([k, v]) => [v, k]));

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

/** A candidate: [model, provider (0: the model id's prefix), rank (true: its index), score, quality,
 * below (1), excluded (a number: its EXCLUDED entry)]; absent fields are null (below: 0) and cut at
 * the end. */
const CANDIDATE = ["model", "provider", "rank", "score", "quality", "below_required_quality", "excluded"];
const ABSENT: readonly Json[] = [null, null, null, null, null, 0, null];

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

function candidate(c: unknown, index: number): Json {
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
  const t: Json[] = [model, provider === model.slice(0, model.indexOf("/")) ? 0 : provider, rank === index ? true : rank,
    score ?? null, quality ?? null, below ? 1 : 0, excluded === undefined ? null : excludedCode(excluded, provider)];
  while (t.length > 3 && t.at(-1) === ABSENT[t.length - 1]) t.pop();
  return t;
}

/** `codes`: format 2, where a number in the excluded slot is an EXCLUDED index. */
function fromCandidate(t: Json, index: number, codes: boolean): Json {
  if (!Array.isArray(t)) return t;
  const [model, provider, rank, score, quality, below, excluded] = t as [string, string | 0, Json, Json?, Json?, Json?, Json?];
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
  const out: Obj = { "~": FORMAT };
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
    if (key === "candidates" && Array.isArray(v)) v = v.map(candidate);
    else if (key === "reasons") v = reasonNotesOf(v);
    else if (key === "attempts" && Array.isArray(v)) v = v.map((a) => toTuple(a, ATTEMPT) ?? a);
    else if (TUPLES[key]) v = toTuple(v, TUPLES[key]!) ?? v;
    out[short] = v!;
  }
  return out as JsonObject;
}

/** The record stage's object from its stored form (any format). */
export function decodeTrace(stored: JsonObject | null): JsonObject | null {
  if (stored === null || (stored["~"] !== 1 && stored["~"] !== FORMAT)) return stored;
  const out: Obj = {};
  for (const short in stored) {
    if (short === "~") continue;
    const key = FROM_TOP[short] ?? short;
    let v = stored[short]!;
    if (key === "candidates" && Array.isArray(v)) v = v.map((t, i) => fromCandidate(t, i, stored["~"] === FORMAT));
    else if (key === "attempts" && Array.isArray(v)) v = v.map((a) => (Array.isArray(a) ? fromTuple(a, ATTEMPT) : a));
    else if (TUPLES[key] && Array.isArray(v)) v = fromTuple(v, TUPLES[key]!);
    out[key] = v;
  }
  // Sentences need the decoded candidates (the exclusion summary); format 1 stored sentences only.
  if (Array.isArray(out.reasons)) out.reasons = reasonSentences(out.reasons, Array.isArray(out.candidates) ? out.candidates : []);
  return out as JsonObject;
}
