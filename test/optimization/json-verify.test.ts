// json_minify's verify (src/optimization/stages/json-minify.ts): a document is accepted only as the
// original without the whitespace outside its strings; every other change is refused.
import { describe, expect, test } from "bun:test";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { stageContext } from "../../src/optimization/engine.ts";
import { optimizationOptionsOf } from "../../src/optimization/options.ts";
import { jsonMinify } from "../../src/optimization/stages/json-minify.ts";

const rows = Array.from({ length: 30 }, (_, i) => ({ id: `ORD-${i}`, total: 1.5 * i, note: "two  spaces \"quoted\" \\ end", ok: i % 2 === 0, none: null }));
const pretty = `Results:\n${JSON.stringify({ rows, page: 1 }, null, 2)}\nEnd of results.`;
const req: ChatRequest = { model: "m", messages: [{ role: "tool", content: pretty, tool_call_id: "c" }] };
const ctx = stageContext(req, optimizationOptionsOf({ mode: "safe" }, undefined, 1), null);
const out = jsonMinify.run(req, ctx)!;
const minified = String(out.messages[0]!.content);
const withText = (content: string): ChatRequest => ({ ...out, messages: [{ ...out.messages[0]!, content }] });
const verify = (content: string): boolean => jsonMinify.verify!(req, withText(content), ctx);

describe("json_minify verify", () => {
  test("holds for the stage's own result, prose around the document unchanged", () => {
    expect(minified).toBe(`Results:\n${JSON.stringify({ rows, page: 1 })}\nEnd of results.`);
    expect(verify(minified)).toBe(true);
  });

  test("refuses a changed value, key order, string whitespace, escape, literal spelling or surrounding text", () => {
    expect(verify(minified.replace("ORD-3", "ORD-4"))).toBe(false);
    expect(verify(minified.replace('"id":"ORD-0","total":0', '"total":0,"id":"ORD-0"'))).toBe(false);
    expect(verify(minified.replace("two  spaces", "two spaces"))).toBe(false);
    expect(verify(minified.replace('\\"quoted\\"', '\\"quoted”'))).toBe(false);
    expect(verify(minified.replace('"total":1.5,', '"total":1.50,'))).toBe(false);
    expect(verify(minified.replace("true", "tr ue"))).toBe(false);
    expect(verify(minified.replace("End of results.", "End of results"))).toBe(false);
    expect(verify(minified.replace("Results:\n", "Results: "))).toBe(false);
    expect(verify(minified.replace('"page":1}', '"page":1} '))).toBe(false);
    expect(verify(minified.replace('"page":1}', '"page":1'))).toBe(false);
  });

  test("whitespace kept between tokens is refused too (the result is the stripped document only)", () => {
    expect(verify(minified.replace('"page":1', '"page": 1'))).toBe(false);
  });
});
