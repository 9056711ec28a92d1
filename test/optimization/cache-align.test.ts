// cache_align (docs/optimization.md "cache_align"): tool definitions whose keys arrive in any order
// leave in one canonical order, the caller's tool order and every value kept; already canonical tools
// are not copied; verify() holds for its result and rejects anything beyond key order.
import { describe, expect, test } from "bun:test";
import { countMessageTokens, countTextTokens } from "../../src/analysis/tokens.ts";
import type { ChatRequest, FunctionTool } from "../../src/canonical/chat.ts";
import { cacheAlign, canonicalTool, sameJson } from "../../src/optimization/stages/cache-align.ts";
import type { StageContext } from "../../src/optimization/types.ts";
import { shuffledKeys, TOOLS } from "./cache-align-tools.ts";

const ctx: StageContext = {
  options: { mode: "safe", preserve: [], do_not_compress: [], documents: [], fields: { keep: [], drop: [] } },
  untouchable: new Set<number>(),
  windowTokens: null,
  countTokens: (req) => countMessageTokens(req.messages) + (req.tools ? countTextTokens(JSON.stringify(req.tools)) : 0),
};

const request = (tools: unknown[]): ChatRequest => ({
  model: "gw-auto",
  messages: [{ role: "system", content: "You are a travel agent." }, { role: "user", content: "Paris, 3 days?" }],
  tools: tools as FunctionTool[],
});

/** What the stage sends: its result, or the request itself when it had nothing to do. */
const aligned = (req: ChatRequest): ChatRequest => cacheAlign.run(req, ctx) ?? req;

describe('cache_align (docs/optimization.md "cache_align")', () => {
  test("tools whose keys arrive in 20 different orders serialise to the same bytes", () => {
    const seen = new Set<string>();
    const sent = new Set<string>();
    for (let seed = 1; seed <= 20; seed++) {
      const req = request(TOOLS.map((t) => shuffledKeys(t, seed)));
      sent.add(JSON.stringify(req.tools));
      const out = aligned(req);
      seen.add(JSON.stringify(out.tools));
      expect(cacheAlign.verify!(req, out, ctx)).toBe(true);
      expect(sameJson(out.tools, TOOLS)).toBe(true);
      expect(out.messages).toBe(req.messages); // only tools change
    }
    expect(sent.size).toBeGreaterThan(10); // the shuffles really differ
    expect(seen.size).toBe(1);
  });

  test("the caller's tool order is kept", () => {
    const reversed = TOOLS.slice().reverse();
    const out = aligned(request(reversed));
    expect((out.tools ?? []).map((t) => t.function.name)).toEqual(reversed.map((t) => t.function.name));
  });

  test("canonical order: type, function; name, description, parameters, strict; schema keys sorted at every depth, property names required-first", () => {
    const out = aligned(request(TOOLS.map((t) => shuffledKeys(t, 7))));
    const book = (out.tools ?? []).find((t) => t.function.name === "book_hotel");
    expect(Object.keys(book!)).toEqual(["type", "function"]);
    expect(Object.keys(book!.function)).toEqual(["name", "description", "parameters"]);
    const params = book!.function.parameters!;
    expect(Object.keys(params)).toEqual(["additionalProperties", "properties", "required", "type"]);
    const props = params.properties as Record<string, Record<string, unknown>>;
    expect(Object.keys(props)).toEqual(["hotel", "check_in", "nights", "guests"]); // required's order, then the rest sorted
    expect(Object.keys(props.guests!)).toEqual(["items", "maxItems", "type"]);
    expect(Object.keys(props.guests!.items as object)).toEqual(["properties", "required", "type"]);
    expect(Object.keys((props.guests!.items as { properties: object }).properties)).toEqual(["name", "age"]);
    // Arrays are values: their order is the caller's.
    expect(params.required).toEqual(["hotel", "check_in", "nights"]);
  });

  test("property names follow `required` (the author's order, strict mode's generation order), whatever order the keys arrived in", () => {
    const out = aligned(request(TOOLS.map((t) => shuffledKeys(t, 3))));
    const strict = (out.tools ?? []).find((t) => t.function.name === "get_weather")!;
    expect(Object.keys(strict.function)).toEqual(["name", "description", "parameters", "strict"]);
    const props = strict.function.parameters!.properties as Record<string, Record<string, unknown>>;
    expect(Object.keys(props)).toEqual(["city", "unit", "days"]);
    expect(Object.keys(props.unit!)).toEqual(["description", "enum", "type"]);
    const flights = (out.tools ?? []).find((t) => t.function.name === "search_flights")!;
    expect(Object.keys(flights.function.parameters!.properties as object)).toEqual(["from", "to", "date", "cabin"]);
  });

  test("a required name missing from properties, or listed twice, is passed over", () => {
    const tool = { type: "function", function: { name: "f", parameters: { type: "object", required: ["b", "ghost", "b"], properties: { a: {}, b: {} } } } };
    const req = request([tool]);
    const out = aligned(req);
    expect(Object.keys(out.tools![0]!.function.parameters!.properties as object)).toEqual(["b", "a"]);
    expect(cacheAlign.verify!(req, out, ctx)).toBe(true);
  });

  test("a schema of 5,000 properties, all required, in a shuffled order: required's order exactly", () => {
    const names = Array.from({ length: 5_000 }, (_, i) => `p${(i * 7919) % 5_000}`);
    const props = Object.fromEntries(names.map((n) => [n, { type: "string" }]));
    const tool = { type: "function", function: { name: "wide", parameters: { type: "object", properties: shuffledKeys(props, 13), required: names } } };
    const req = request([tool]);
    const out = aligned(req);
    expect(Object.keys(out.tools![0]!.function.parameters!.properties as object)).toEqual(names);
    expect(cacheAlign.verify!(req, out, ctx)).toBe(true);
  });

  test("already canonical tools: nothing to do (null), and canonicalTool returns the same objects", () => {
    const once = aligned(request(TOOLS.map((t) => shuffledKeys(t, 11))));
    expect(cacheAlign.run(once, ctx)).toBeNull();
    for (const t of once.tools ?? []) expect(canonicalTool(t)).toBe(t);
  });

  test("no tools, or an empty list: nothing to do", () => {
    expect(cacheAlign.run({ model: "gw-auto", messages: [{ role: "user", content: "hi" }] }, ctx)).toBeNull();
    expect(cacheAlign.run(request([]), ctx)).toBeNull();
  });

  test("the input is never mutated", () => {
    const req = request(TOOLS.map((t) => shuffledKeys(t, 5)));
    const before = JSON.stringify(req);
    aligned(req);
    expect(JSON.stringify(req)).toBe(before);
  });

  test("verify rejects a changed value, a reordered tool list, a dropped key and a changed message", () => {
    const req = request(TOOLS.map((t) => shuffledKeys(t, 9)));
    const out = aligned(req);
    const tools = out.tools ?? [];
    const changedValue = structuredClone(tools);
    changedValue[0]!.function.description = "Something else";
    expect(cacheAlign.verify!(req, { ...out, tools: changedValue }, ctx)).toBe(false);
    expect(cacheAlign.verify!(req, { ...out, tools: tools.slice().reverse() }, ctx)).toBe(false);
    const dropped = structuredClone(tools);
    delete dropped[1]!.function.description;
    expect(cacheAlign.verify!(req, { ...out, tools: dropped }, ctx)).toBe(false);
    expect(cacheAlign.verify!(req, { ...out, messages: [...out.messages] }, ctx)).toBe(false);
    expect(cacheAlign.verify!(req, { ...out, temperature: 0 }, ctx)).toBe(false);
  });

  test("sameJson: key order ignored, array order and values not", () => {
    expect(sameJson({ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 })).toBe(true);
    expect(sameJson({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameJson({ a: null }, { a: {} })).toBe(false);
  });
});
