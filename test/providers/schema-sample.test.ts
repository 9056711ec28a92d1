// Tests for the sandbox provider's sampleFromSchema: every sample must validate (ajv) against its schema.
import { describe, expect, test } from "bun:test";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020";
import { sampleFromSchema } from "../../src/providers/sandbox/schema-sample.ts";

// ajv-formats is not installed: register simple checks for the formats the generator emits.
const ipv6 = (s: string): boolean => {
  if (!/^[0-9a-f:]+$/i.test(s) || !s.includes(":")) return false;
  try { return new URL(`http://[${s}]/`).hostname.length > 2; } catch { return false; }
};
const FORMATS: Record<string, RegExp | ((s: string) => boolean)> = {
  "date-time": /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
  date: /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/,
  time: /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
  email: /^[^\s@]+@[^\s@]+\.[a-z]{2,}$/i,
  uri: /^[a-z][a-z0-9+.-]*:\/\/[^\s]+$/i,
  url: /^https?:\/\/[^\s/$.?#].[^\s]*$/i,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i,
  ipv4: /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/,
  ipv6,
  hostname: /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i,
};
function withFormats<T extends Ajv>(ajv: T): T {
  for (const [name, check] of Object.entries(FORMATS)) ajv.addFormat(name, check);
  return ajv;
}
const ajv2020 = withFormats(new Ajv2020({ strict: false, allErrors: true }));
const ajv07 = withFormats(new Ajv({ strict: false, allErrors: true }));

type Case = { name: string; schema: Record<string, unknown> | boolean; draft?: "07" };
const str = { type: "string" };
const int = { type: "integer" };
const closed = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object", properties, required: Object.keys(properties), additionalProperties: false, ...extra,
});

const CASES: Case[] = [
  // OpenAI structured-output examples
  { name: "math reasoning steps", schema: closed({ steps: { type: "array", items: closed({ explanation: str, output: str }) }, final_answer: str }) },
  { name: "UI component, recursive via #", schema: closed({
    type: { type: "string", enum: ["div", "button", "header", "section", "field", "form"] },
    label: str,
    children: { type: "array", items: { $ref: "#" } },
    attributes: { type: "array", items: closed({ name: str, value: str }) },
  }) },
  { name: "UI component, recursive via $defs + anyOf", schema: {
    type: "object", properties: { ui: { $ref: "#/$defs/component" } }, required: ["ui"], additionalProperties: false,
    $defs: {
      component: { anyOf: [{ $ref: "#/$defs/container" }, { $ref: "#/$defs/button" }] },
      container: closed({ kind: { const: "container" }, children: { type: "array", items: { $ref: "#/$defs/component" } } }),
      button: closed({ kind: { const: "button" }, label: str, disabled: { type: "boolean" } }),
    },
  } },
  { name: "linked list with anyOf null", schema: {
    type: "object", properties: { linked_list: { $ref: "#/$defs/node" } }, required: ["linked_list"], additionalProperties: false,
    $defs: { node: closed({ value: { type: "number" }, next: { anyOf: [{ $ref: "#/$defs/node" }, { type: "null" }] } }) },
  } },
  { name: "calendar event extraction", schema: closed({ name: str, date: str, participants: { type: "array", items: str } }) },
  { name: "research paper extraction", schema: closed({
    title: str, authors: { type: "array", items: str }, abstract: str, keywords: { type: "array", items: str },
    sections: { type: "array", items: closed({ heading: str, page: { type: "integer", minimum: 1 } }) },
  }) },
  { name: "moderation", schema: closed({
    is_violating: { type: "boolean" },
    category: { type: ["string", "null"], enum: ["violence", "sexual", "self_harm", null] },
    explanation_if_violating: { type: ["string", "null"] },
  }) },
  // function parameters
  { name: "get_weather", schema: { type: "object", properties: {
    location: { type: "string", description: "City and state, e.g. San Francisco, CA" },
    unit: { type: "string", enum: ["celsius", "fahrenheit"] },
  }, required: ["location"] } },
  { name: "get_weather strict", schema: closed({ location: str, unit: { type: ["string", "null"], enum: ["celsius", "fahrenheit", null] } }) },
  { name: "create_calendar_event", schema: { type: "object", properties: {
    title: str, start: { type: "string", format: "date-time" }, duration_minutes: { type: "integer", minimum: 15, maximum: 480, multipleOf: 15 },
    attendees: { type: "array", minItems: 1, items: { type: "object", properties: { email: { type: "string", format: "email" }, optional: { type: "boolean" } }, required: ["email"] } },
  }, required: ["title", "start", "attendees"] } },
  { name: "search_products", schema: { type: "object", properties: {
    query: str, limit: { type: "integer", minimum: 1, maximum: 50, default: 10 },
    filters: { type: "object", properties: {
      category: { enum: ["books", "electronics", "garden"] }, in_stock: { type: "boolean" },
      price_range: closed({ min: { type: "number", minimum: 0 }, max: { type: "number", minimum: 0 } }),
    } },
  }, required: ["query"] } },
  // structure
  { name: "nested objects", schema: closed({
    user: closed({ name: str, address: closed({ street: str, city: str, zip: { type: "string", pattern: "^\\d{5}$" } }), contact: closed({ email: { type: "string", format: "email" } }) }),
  }) },
  { name: "arrays of objects", schema: closed({ orders: { type: "array", minItems: 1, maxItems: 3, items: closed({
    id: { type: "integer", minimum: 1 },
    lines: { type: "array", minItems: 1, items: closed({ sku: { type: "string", pattern: "^[A-Z]{3}-\\d{4}$" }, qty: { type: "integer", minimum: 1, maximum: 10 } }) },
  }) } }) },
  { name: "deep nesting (12 levels)", schema: (() => {
    let s: Record<string, unknown> = { type: "object", properties: { leaf: str, optional: { type: "array", items: str } }, required: ["leaf"] };
    for (let i = 0; i < 12; i++) s = { type: "object", properties: { child: s, note: str }, required: ["child"] };
    return s;
  })() },
  { name: "draft-07 recursive tree via definitions", draft: "07", schema: {
    definitions: { node: { type: "object", properties: { value: int, children: { type: "array", items: { $ref: "#/definitions/node" } } }, required: ["value", "children"] } },
    $ref: "#/definitions/node",
  } },
  { name: "recursive person with nullable manager", schema: {
    type: "object", properties: { employee: { $ref: "#/$defs/person" } }, required: ["employee"],
    $defs: { person: closed({ name: str, manager: { anyOf: [{ $ref: "#/$defs/person" }, { type: "null" }] }, reports: { type: "array", items: { $ref: "#/$defs/person" } } }) },
  } },
  { name: "$anchor reference", schema: { $defs: { n: { $anchor: "item", type: "object", properties: { sku: str }, required: ["sku"] } }, type: "array", items: { $ref: "#item" }, minItems: 2 } },
  // combinators
  { name: "anyOf with null", schema: closed({ value: { anyOf: [str, { type: "null" }] }, count: { anyOf: [int, { type: "null" }] } }) },
  { name: "oneOf string | integer", schema: { oneOf: [str, int] } },
  { name: "oneOf overlapping integer | number>=0", schema: { oneOf: [int, { type: "number", minimum: 0 }] } },
  { name: "oneOf discriminated shapes", schema: { type: "object", oneOf: [
    { properties: { shape: { const: "circle" }, radius: { type: "number", exclusiveMinimum: 0 } }, required: ["shape", "radius"] },
    { properties: { shape: { const: "square" }, side: { type: "number", exclusiveMinimum: 0 } }, required: ["shape", "side"] },
  ] } },
  { name: "allOf merges objects", schema: { allOf: [
    { type: "object", properties: { id: { type: "string", format: "uuid" } }, required: ["id"] },
    { properties: { created: { type: "string", format: "date-time" }, tags: { type: "array", items: str } }, required: ["created"] },
    { properties: { id: { minLength: 36 } } },
  ] } },
  { name: "allOf with $ref base and closed branch", draft: "07", schema: {
    definitions: { base: { type: "object", properties: { kind: { enum: ["a", "b"] }, name: str, extra: int }, required: ["kind"] } },
    allOf: [{ $ref: "#/definitions/base" }, { type: "object", properties: { kind: str, name: str }, required: ["name"], additionalProperties: false }],
  } },
  { name: "allOf numeric bounds", schema: { allOf: [{ type: "integer", minimum: 10 }, { maximum: 20 }, { type: ["integer", "string"] }] } },
  { name: "if/then/else", schema: {
    type: "object", properties: { country: { enum: ["US", "CA"] }, postal: str }, required: ["country", "postal"],
    if: { properties: { country: { const: "US" } } },
    then: { properties: { postal: { pattern: "^\\d{5}$" } } },
    else: { properties: { postal: { pattern: "^[A-Z]\\d[A-Z] \\d[A-Z]\\d$" } } },
  } },
  { name: "not const", schema: { type: "integer", minimum: 0, maximum: 3, not: { const: 1 } } },
  // scalars
  { name: "string enum of 5", schema: { type: "string", enum: ["red", "orange", "yellow", "green", "blue"] } },
  { name: "enum of numbers", schema: { enum: [1, 2, 3, 5, 8, 13] } },
  { name: "mixed enum", schema: { enum: ["a", 1, null, true, { x: 1 }] } },
  { name: "const values", schema: closed({ kind: { const: "event" }, version: { const: 2 }, meta: { const: { a: [1, 2] } } }) },
  { name: "integer bounds with multipleOf", schema: { type: "integer", minimum: 10, maximum: 100, multipleOf: 7 } },
  { name: "integer exclusive bounds", schema: { type: "integer", exclusiveMinimum: 2.5, exclusiveMaximum: 5 } },
  { name: "number exclusive (0,1)", schema: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 } },
  { name: "price multipleOf 0.01", schema: { type: "number", minimum: 0, maximum: 1000, multipleOf: 0.01 } },
  { name: "number multipleOf 0.25 negative range", schema: { type: "number", minimum: -10, maximum: -1, multipleOf: 0.25 } },
  { name: "integer only maximum", schema: { type: "integer", maximum: -50 } },
  { name: "string length bounds", schema: closed({ short: { type: "string", maxLength: 3 }, mid: { type: "string", minLength: 10, maxLength: 20 }, long: { type: "string", minLength: 60 }, exact: { type: "string", minLength: 4, maxLength: 4 } }) },
  { name: "formats", schema: closed(Object.fromEntries(Object.keys(FORMATS).map((f) => [f.replace("-", "_"), { type: "string", format: f }]))) },
  { name: "format with length bounds", schema: { type: "string", format: "email", maxLength: 64, minLength: 5 } },
  { name: "patterns", schema: closed({
    lower: { type: "string", pattern: "^[a-z]+$" }, phone: { type: "string", pattern: "^\\d{3}-\\d{4}$" },
    code: { type: "string", pattern: "^[A-Z]{2}\\d{2}$" }, color: { type: "string", pattern: "^#[0-9a-f]{6}$" },
    username: { type: "string", pattern: "^[a-z0-9_]{3,16}$" }, semver: { type: "string", pattern: "^\\d+\\.\\d+\\.\\d+$" },
    choice: { type: "string", pattern: "^(draft|final)-v[0-9]+$" }, unanchored: { type: "string", pattern: "[0-9]" },
    intl: { type: "string", pattern: "^\\+?[1-9]\\d{6,14}$" }, password: { type: "string", pattern: "^(?=.*[A-Z])(?=.*\\d).{8,}$" },
    bounded: { type: "string", pattern: "^[a-z]+$", minLength: 8, maxLength: 10 },
  }) },
  { name: "type arrays", schema: closed({ a: { type: ["string", "null"] }, b: { type: ["integer", "string"], minimum: 3 }, c: { type: ["array", "null"], items: int } }) },
  { name: "missing type (inferred)", schema: { properties: { n: { minimum: 5, maximum: 6 }, s: { minLength: 2 }, anything: {}, list: { items: int, minItems: 2 } }, required: ["n", "s", "anything", "list"] } },
  { name: "boolean schema true", schema: true },
  { name: "boolean subschemas", schema: { type: "object", properties: { any: true, none: false }, required: ["any"] } },
  // arrays
  { name: "prefixItems tuple", schema: { type: "array", prefixItems: [{ type: "number" }, str, { enum: ["N", "S"] }], items: false, minItems: 3 } },
  { name: "prefixItems + rest items", schema: { type: "array", prefixItems: [{ const: "header" }], items: int, minItems: 3 } },
  { name: "draft-07 tuple items + additionalItems", draft: "07", schema: { type: "array", items: [{ type: "number" }, { type: "boolean" }], additionalItems: false } },
  { name: "array bounds", schema: closed({ exactly3: { type: "array", minItems: 3, maxItems: 3, items: { type: "number" } }, none: { type: "array", maxItems: 0 } }) },
  { name: "uniqueItems from enum", schema: { type: "array", items: { enum: ["a", "b", "c", "d", "e"] }, minItems: 4, uniqueItems: true } },
  { name: "uniqueItems strings", schema: closed({ tags: { type: "array", items: str, minItems: 5, uniqueItems: true } }) },
  { name: "contains", schema: { type: "array", items: int, contains: { minimum: 500 } } },
  // objects
  { name: "additionalProperties false with required subset", schema: { type: "object", properties: { a: str, b: int, c: { type: "boolean" } }, required: ["a"], additionalProperties: false } },
  { name: "minProperties with additionalProperties schema", schema: { type: "object", additionalProperties: int, minProperties: 3 } },
  { name: "patternProperties closed", schema: { type: "object", patternProperties: { "^x-[a-z]+$": str }, additionalProperties: false, minProperties: 2 } },
  { name: "maxProperties", schema: { type: "object", properties: { a: str, b: str, c: str }, required: ["b"], maxProperties: 2 } },
  { name: "dependentRequired", schema: { type: "object", properties: { card: str, billing: str }, required: ["card"], dependentRequired: { card: ["billing"] } } },
];

const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);

describe("sampleFromSchema validates against the schema (seeds 1..20)", () => {
  test("table has at least 40 schemas", () => expect(CASES.length).toBeGreaterThanOrEqual(40));
  for (const { name, schema, draft } of CASES) {
    test(name, () => {
      const validate = (draft === "07" ? ajv07 : ajv2020).compile(schema);
      for (const seed of SEEDS) {
        const value = sampleFromSchema(schema, seed);
        const errors = validate(value) ? null : validate.errors;
        expect({ seed, value, errors }).toEqual({ seed, value, errors: null });
      }
    });
  }
});

describe("sampleFromSchema behaviour", () => {
  test("is deterministic for the same schema and seed", () => {
    for (const { schema } of CASES) {
      const a = sampleFromSchema(schema, 7);
      expect(sampleFromSchema(schema, 7)).toEqual(a);
      expect(JSON.parse(JSON.stringify(a))).toEqual(a); // plain JSON, no undefined / NaN
    }
  });

  test("different seeds vary the pick from a 5-member enum", () => {
    const schema = { type: "string", enum: ["red", "orange", "yellow", "green", "blue"] };
    const seen = new Set(SEEDS.map((seed) => sampleFromSchema(schema, seed)));
    expect(seen.size).toBeGreaterThanOrEqual(2);
  });

  test("strings look plausible for well-known property names", () => {
    const schema = closed({ name: str, email: { type: "string", format: "email" }, summary: str });
    for (const seed of SEEDS) {
      const v = sampleFromSchema(schema, seed) as { name: string; email: string; summary: string };
      expect(v.name).toMatch(/^[A-Z][a-z]+ [A-Z][a-z]+$/);
      expect(v.email).toMatch(/@example\.(com|org|net)$/);
      expect(v.summary).toMatch(/^[A-Z][a-z ,.]+$/);
    }
  });

  test("recursion terminates and stays small", () => {
    const ui = CASES.find((c) => c.name === "UI component, recursive via #")?.schema ?? true;
    for (const seed of SEEDS) expect(JSON.stringify(sampleFromSchema(ui, seed)).length).toBeLessThan(20_000);
  });

  test("schema `false` and unsatisfiable recursion throw", () => {
    expect(() => sampleFromSchema(false, 1)).toThrow();
    const endless = { $defs: { a: { type: "object", properties: { a: { $ref: "#/$defs/a" } }, required: ["a"] } }, $ref: "#/$defs/a" };
    expect(() => sampleFromSchema(endless, 1)).toThrow(/too deeply/);
  });
});
