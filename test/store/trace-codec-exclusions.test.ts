// Trace storage, format 2 (docs/observability.md "Trace storage"): the exclusions most candidates
// repeat are stored as numbers and read back as the same text; anything else is stored as it is.
import { describe, expect, test } from "bun:test";
import type { JsonObject } from "../../src/lib/json.ts";
import { decodeTrace, encodeTrace } from "../../src/store/trace-codec.ts";

const roundTrip = (t: JsonObject): string => JSON.stringify(decodeTrace(JSON.parse(JSON.stringify(encodeTrace(t))) as JsonObject));

describe("excluded candidates", () => {
  const excluded = (model: string, provider: string, why: unknown) => ({ model, provider, rank: null, excluded: why });
  const cases: Array<[string, JsonObject]> = [
    ["each common exclusion, provider named by the model id or not", { candidates: [
      excluded("openai/gpt-4o", "openai", "provider openai not enabled"),
      excluded("groq/openai/gpt-oss", "groq", "provider groq not in the project's allowed_providers"),
      excluded("google/gemini", "google", "provider google blocked by the project's policy"),
      excluded("anthropic/claude", "anthropic", "no project key for anthropic (the API key is BYOK only)"),
      excluded("x/m", "sandbox", "provider sandbox not enabled"),
      excluded("noslash", "", "provider  not enabled"),
    ] }],
    ["another provider's name, or other text, stays text", { candidates: [
      excluded("openai/gpt-4o", "openai", "provider groq not enabled"),
      excluded("openai/gpt-4o", "openai", "provider openai not enabled!"),
      excluded("a/b", "a", "no tool support"),
      excluded("a/b", "a", "could cost up to $0.02 > max_cost $0.01"),
    ] }],
    ["an excluded that is not text stays an object", { candidates: [excluded("a/b", "a", 3), excluded("a/b", "a", { why: 1 })] }],
  ];
  for (const [name, trace] of cases) test(name, () => expect(roundTrip(trace)).toBe(JSON.stringify(trace)));

  test("stored as a number and the provider left out", () => {
    const stored = encodeTrace({ candidates: [excluded("openai/gpt-4o", "openai", "provider openai not enabled")] });
    expect(JSON.stringify(stored)).toBe('{"~":2,"c":[["openai/gpt-4o",0,null,null,null,0,0]]}');
  });

  test("format 1 stored the text: a number there reads as it was", () => {
    const stored = { "~": 1, c: [["a/x", 0, null, null, null, 0, 0], ["a/y", 0, null, null, null, 0, "provider a not enabled"]] };
    expect(decodeTrace(stored)?.candidates).toEqual([
      { model: "a/x", provider: "a", rank: null, excluded: 0 },
      { model: "a/y", provider: "a", rank: null, excluded: "provider a not enabled" },
    ]);
  });
});
