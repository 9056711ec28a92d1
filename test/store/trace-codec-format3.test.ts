// Trace format 3 (src/store/trace-codec.ts, docs/observability.md "Trace storage"): span times as whole
// microseconds and common exclusions as [model, n], read back as before; format 2 where spans do not
// fit, and format 2 traces read as they did. encodeTraceText writes encodeTrace's JSON exactly.
import { describe, expect, test } from "bun:test";
import { COMPONENT_VERSIONS } from "../../src/config/versions.ts";
import type { JsonObject } from "../../src/lib/json.ts";
import { round3 } from "../../src/observability/trace.ts";
import { decodeTrace, encodeTrace, encodeTraceText } from "../../src/store/trace-codec.ts";

const stored = (t: JsonObject): JsonObject => JSON.parse(encodeTraceText(t)) as JsonObject;
const roundTrip = (t: JsonObject): string => JSON.stringify(decodeTrace(stored(t)));

const spans = [
  ["request", 0, 18.41, null],
  ["parse", 2.009, 2.42, null],
  ["llm", 15.544, 1.705, "upstream_error", { provider: "openai", model: "openai/gpt-4o-mini", attempt: 0, stream: false }],
];

describe("format 3", () => {
  test("stored as integers, read back as the same milliseconds, key for key", () => {
    const trace = { spans, candidates: [{ model: "a/x", provider: "a", rank: 0 }], versions: COMPONENT_VERSIONS };
    const s = stored(trace);
    expect(s["~"]).toBe(3);
    expect(s.s).toEqual([[0, 0, 18410], [2, 2009, 2420], [10, 15544, 1705, "upstream_error", spans[2]![4]]]);
    expect(roundTrip(trace)).toBe(JSON.stringify(trace));
  });

  test("every round3 value survives, however long the request", () => {
    const times = [0, 0.001, 0.007, 0.1, 0.3, 1.005, 2.675, 123.456, 9999.999, 86_400_000.123, 1e12 + 0.5];
    const trace = { spans: times.map((t, i) => [`s${i}`, round3(t), round3(t * 3.1), null]) };
    expect(stored(trace)["~"]).toBe(3);
    expect(roundTrip(trace)).toBe(JSON.stringify(trace));
  });

  test("span times that are not whole microseconds keep the trace in format 2, unchanged", () => {
    for (const odd of [0.0005, 1 / 3, Number.NaN, Number.POSITIVE_INFINITY]) {
      const trace = { spans: [["request", 0, odd, null]], reason: "r" };
      const s = stored(trace);
      expect(s["~"]).toBe(2);
      expect(s.s).toEqual(JSON.parse(JSON.stringify(trace.spans)));
      expect(roundTrip(trace)).toBe(JSON.stringify(JSON.parse(JSON.stringify(trace))));
    }
    expect(stored({ spans: [["request", "0", 1, null]] })["~"]).toBe(2);
    // Shorter than [name, start, duration, error], or a name that is not a string: format 2.
    expect(stored({ spans: [["request", 0, 1]] })["~"]).toBe(2);
    expect(stored({ spans: [[0, 0, 1, null]] })["~"]).toBe(2);
    expect(stored({ spans: { request: 1 } })["~"]).toBe(2);
  });

  test("a candidate excluded for a common reason is [model, n]; any other stays a whole tuple", () => {
    const candidates = [
      { model: "openai/gpt-4o-mini", provider: "openai", rank: 0, score: 0.9, quality: 0.78 },
      { model: "anthropic/claude-haiku-4-5", provider: "anthropic", rank: null, excluded: "provider anthropic not enabled" },
      { model: "groq/openai/gpt-oss-120b", provider: "groq", rank: null, excluded: "provider groq blocked by the project's policy" },
      { model: "together/x", provider: "tg", rank: null, excluded: "provider tg not enabled" },
      { model: "mistral/m", provider: "mistral", rank: null, excluded: "over the budget ($0.01 left)" },
      { model: "xai/grok", provider: "xai", rank: 4, excluded: "provider xai not enabled" },
      { model: "noslash", provider: "noslas", rank: null, excluded: "no project key for noslas (the API key is BYOK only)" },
    ];
    const trace = { spans, candidates, reasons: undefined, versions: COMPONENT_VERSIONS };
    expect(stored(trace).c).toEqual([
      ["openai/gpt-4o-mini", 0, true, 0.9, 0.78],
      ["anthropic/claude-haiku-4-5", 0],
      ["groq/openai/gpt-oss-120b", 2],
      ["together/x", "tg", null, null, null, 0, 0],
      ["mistral/m", 0, null, null, null, 0, "over the budget ($0.01 left)"],
      ["xai/grok", 0, 4, null, null, 0, 0],
      ["noslash", 3],
    ]);
    expect(roundTrip(trace)).toBe(JSON.stringify(trace));
    // Without spans (format 2) the same candidates keep the whole tuples.
    expect(stored({ candidates })["~"]).toBe(2);
    expect((stored({ candidates }).c as unknown[])[1]).toEqual(["anthropic/claude-haiku-4-5", 0, null, null, null, 0, 0]);
    expect(roundTrip({ candidates })).toBe(JSON.stringify({ candidates }));
  });

  test("a trace without spans is format 2, as before", () => {
    expect(stored({ reason: "x" })["~"]).toBe(2);
  });

  test("a span name not in the list is stored as it is; an error or attributes are kept", () => {
    const odd = [["request", 0, 5, "timeout"], ["future_step", 1.5, 2, null], ["llm", 2, 1, null, { attempt: 1 }], ["parse", 0, 0, undefined]];
    const trace = { spans: odd };
    expect(stored(trace).s).toEqual([[0, 0, 5000, "timeout"], ["future_step", 1500, 2000], [10, 2000, 1000, null, { attempt: 1 }], [2, 0, 0, null]]);
    expect(roundTrip(trace)).toBe(JSON.stringify(trace));
  });

  test("format 3 traces written with span names and null errors read the same", () => {
    const early = { "~": 3, s: [["request", 0, 18410, null], ["llm", 15544, 1705, null, { attempt: 0 }]], r: "x" };
    expect(decodeTrace(early)).toEqual({ spans: [["request", 0, 18.41, null], ["llm", 15.544, 1.705, null, { attempt: 0 }]], reason: "x" });
    expect(decodeTrace({ "~": 3, s: [[99, 0, 1]] })).toEqual({ spans: [[99, 0, 0.001, null]] });
  });

  test("format 2 traces stored before read as they did (span times in milliseconds)", () => {
    const old = { "~": 2, s: [["request", 0, 18.41, null]], r: "x", v: ["0.1.0"] };
    expect(decodeTrace(old)).toEqual({ spans: [["request", 0, 18.41, null]], reason: "x", versions: { gateway: "0.1.0" } });
  });
});

describe("encodeTraceText", () => {
  const cases: Array<[string, JsonObject]> = [
    ["versions last (its tuple made once)", { spans, reason: "r", versions: COMPONENT_VERSIONS }],
    ["versions alone", { versions: COMPONENT_VERSIONS }],
    ["unsampled", { sampled: false, versions: COMPONENT_VERSIONS }],
    ["a key after versions", { versions: COMPONENT_VERSIONS, reason: "r", extra: [1] }],
    ["versions not frozen", { versions: { gateway: "1", api: "2" } }],
    ["versions in another key order", { versions: Object.freeze({ api: "2", gateway: "1" }) }],
    ["versions undefined", { reason: "r", versions: undefined }],
    ["versions null", { spans, reason: "r", versions: null }],
    ["a key that reads as a short key", { s: 1, versions: COMPONENT_VERSIONS }],
  ];
  for (const [name, trace] of cases) {
    test(name, () => {
      expect(encodeTraceText(trace)).toBe(JSON.stringify(encodeTrace(trace)));
      expect(roundTrip(trace)).toBe(JSON.stringify(trace));
    });
  }

  // Every top-level key, in the record stage's order, with a value of each kind the trace holds.
  const full: JsonObject = {
    spans, parent_span_id: "caller", detected: { task: "coding", subtype: "debug", source: "detected", input_tokens_bound: 10 },
    profile: "gw-auto", workload: "code", required_quality: 0.7, weights: { quality: 0.5, cost: 0.3, latency: 0.2 },
    candidates: [{ model: "a/x", provider: "a", rank: 0, score: 0.9 }, { model: "b/y", provider: "b", rank: null, excluded: "provider b not enabled" }],
    reasons: [["q", 0.7, "coding", "gw-auto", "low"]], expected: { cost: 0.1 }, health: { skipped: 1 }, session: { id: "s" },
    workflow_budget: { budget: 1, remaining: 0.5 }, reason: "highest score", attempts: [{ model: "a/x", provider: "a", status: "ok", error_code: null, failure_class: null, upstream_status: 200, duration_ms: 3 }],
    timings: { call: 3.3 }, error: { step: "call" }, optimization: { mode: "off", original_tokens: 1, final_tokens: 1, stages: [] },
    cache: { result: "miss", kind: null, miss_reason: "none", semantic: null }, tools: { count: 1, choice: "auto" }, usage_estimated: true,
    client_disconnected: true, byok: true, billing: { mode: "postpaid", reserved: 0, charge: 0.1 }, guard: { pii: 0 },
    versions: COMPONENT_VERSIONS, sampled: false,
  };
  const keys = Object.keys(full);

  test("every key in the record stage's order, and any subset of them, gives encodeTrace's text", () => {
    expect(encodeTraceText(full)).toBe(JSON.stringify(encodeTrace(full)));
    const odd = [null, "x", 1, [], {}, undefined];
    let seed = 7;
    const next = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let i = 0; i < 2000; i++) {
      const trace: JsonObject = {};
      for (const k of keys) {
        const roll = next(4);
        if (roll === 0) trace[k] = full[k];
        else if (roll === 1) trace[k] = odd[next(odd.length)];
      }
      expect(encodeTraceText(trace)).toBe(JSON.stringify(encodeTrace(trace)));
    }
  });

  test("keys out of the record stage's order, or unknown, give encodeTrace's text too", () => {
    const reversed: JsonObject = {};
    for (const k of [...keys].reverse()) reversed[k] = full[k];
    expect(encodeTraceText(reversed)).toBe(JSON.stringify(encodeTrace(reversed)));
    const extra = { ...full, future: 1 };
    expect(encodeTraceText(extra)).toBe(JSON.stringify(encodeTrace(extra)));
  });
});
