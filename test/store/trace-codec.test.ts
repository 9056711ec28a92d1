// Trace storage (src/store/trace-codec.ts, docs/observability.md "Trace storage"): traces are stored
// compactly and read back exactly as the record stage made them, key order included, so
// GET /requests/{id} is unchanged; old (uncompacted) traces read as before.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { JsonObject } from "../../src/lib/json.ts";
import type { RequestRecord } from "../../src/store/repos/requests.ts";
import { decodeTrace, encodeTrace } from "../../src/store/trace-codec.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { post, startTestGw, type TestGw } from "../helpers/test-gw.ts";

const roundTrip = (t: JsonObject): string => JSON.stringify(decodeTrace(JSON.parse(JSON.stringify(encodeTrace(t))) as JsonObject));

describe("round trips of edge cases", () => {
  const cases: Array<[string, JsonObject]> = [
    ["score 0, quality absent, excluded, rank not the index", { candidates: [
      { model: "a/x", provider: "a", rank: 0, score: 0 },
      { model: "b/y", provider: "sandbox", rank: 5, score: 0.5, quality: 0, below_required_quality: true },
      { model: "c/z", provider: "c", rank: null, excluded: "no key" },
      { model: "noslash", provider: "", rank: 3 },
    ] }],
    ["below false and extra keys stay objects", { candidates: [{ model: "a/x", provider: "a", rank: 0, below_required_quality: false }, { model: "a/x", provider: "a", rank: 1, extra: 1 }] }],
    ["objects in another key order stay objects", { detected: { subtype: "s", task: "t" }, cache: { result: "hit" }, versions: { api: "1", gateway: "2" } }],
    ["unknown top-level keys kept", { future_field: { a: [1, null] }, spans: [["request", 0, 1, null]] }],
    ["a key that reads as a short key: stored as is", { s: 1, spans: [] }],
    ["unsampled", { sampled: false, versions: { gateway: "0.1.0", api: "x" } }],
    ["attempts with and without byok, and a stranger", { attempts: [
      { model: "m", provider: "p", status: "ok", error_code: null, failure_class: null, upstream_status: 200, duration_ms: 3 },
      { model: "m", provider: "p", status: "ok", error_code: null, failure_class: null, upstream_status: 200, duration_ms: 3, byok: true },
      { provider: "p", model: "m" },
    ] }],
  ];
  for (const [name, trace] of cases) test(name, () => expect(roundTrip(trace)).toBe(JSON.stringify(trace)));

  test("an old trace (no format mark) reads as it was stored", () => {
    const old = { spans: [], candidates: [{ model: "a/x", provider: "a", rank: 0 }], versions: { gateway: "0.0.1" } };
    expect(decodeTrace(old)).toEqual(old);
  });
});

describe("real traces through gw", () => {
  let gw: TestGw;
  let upstream: ScriptedUpstream;
  const made = new Map<string, RequestRecord>();
  beforeAll(async () => {
    upstream = await startScriptedUpstream({});
    gw = await startTestGw({ OPENAI_API_KEY: "sk-codec-000000", OPENAI_BASE_URL: upstream.url, GW_SEMANTIC_EMBEDDER: "off" });
    gw.deps.requestListeners.push((row) => made.set(row.id, row));
  });
  afterAll(async () => {
    await gw.stop();
    await upstream.stop();
  });

  test("profile, explicit model, stream, error and embeddings traces read back identical; stored smaller", async () => {
    const live = gw.key({ mode: "live", scopes: ["chat", "embeddings", "requests"] });
    const user = (content: string) => [{ role: "user", content }];
    const sent = [
      post(`${gw.url}/chat/completions`, gw.testKey, { model: "gw-auto", messages: user("Write a python function that sorts a list") }),
      post(`${gw.url}/chat/completions`, gw.testKey, { model: "gw-quality", messages: user("Summarize the news"), stream: true }),
      post(`${gw.url}/chat/completions`, live, { model: "openai/gpt-4o-mini", messages: user("hello") }, { "x-gw-cache": "off" }),
      post(`${gw.url}/chat/completions`, gw.testKey, { model: "nope/model", messages: user("x") }),
      post(`${gw.url}/embeddings`, gw.testKey, { model: "openai/text-embedding-3-small", input: "hi" }),
    ];
    for (const res of await Promise.all(sent)) await res.text();
    await gw.drain();
    expect(made.size).toBe(5);
    let before = 0;
    let after = 0;
    for (const [id, row] of made) {
      const original = JSON.stringify(row.trace);
      expect(JSON.stringify(gw.deps.repos.requests.get(row.projectId, id)!.trace)).toBe(original);
      before += original.length;
      after += gw.deps.db.query<{ n: number }, [string]>("SELECT length(data) AS n FROM traces WHERE request_id = ?").get(id)!.n;
    }
    expect(after).toBeLessThan(before * 0.7);
  });
});

test("a key that may be absent in the middle (cache.similarity) round-trips present, absent and null", () => {
  for (const cache of [
    { result: "hit", kind: "semantic", similarity: 0.97, miss_reason: null, semantic: { eligible: true } },
    { result: "miss", kind: null, miss_reason: "not_found", semantic: { eligible: false }, stored: { ttl_s: 1 } },
    { result: "miss", kind: null, similarity: null, miss_reason: "x" },
    { result: "miss" },
  ]) expect(roundTrip({ cache })).toBe(JSON.stringify({ cache }));
});
