// The optimisation corpus (docs/optimization.md "Evaluation"): well formed, and what the bench's
// checks (bench/optimization/measure.ts) say about known changes, before any engine runs.
import { describe, expect, test } from "bun:test";
import { checkCase, codeBlocks, decodeColumns, jsonSpans, requestTexts } from "../../bench/optimization/measure.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { CASE_TYPES, loadCorpus } from "../fixtures/optimization/corpus.ts";

const cases = loadCorpus();

describe("optimisation corpus: shape", () => {
  test("at least 60 cases, unique ids, every content type with at least 8", () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
    for (const t of CASE_TYPES) expect(cases.filter((c) => c.type === t).length).toBeGreaterThanOrEqual(8);
  });

  test("every gold fact is in the original request, and every case has a question", () => {
    for (const c of cases) {
      const all = requestTexts(c.request).join("\n");
      expect(c.gold.length).toBeGreaterThan(0);
      expect(c.question.length).toBeGreaterThan(0);
      for (const g of c.gold) expect({ id: c.id, present: all.includes(g) }).toEqual({ id: c.id, present: true });
    }
  });

  test("tool calls and tool results pair up, in order", () => {
    for (const c of cases) {
      const open = new Set<string>();
      for (const m of c.request.messages) {
        for (const call of m.tool_calls ?? []) open.add(call.id);
        if (m.role === "tool") expect({ id: c.id, paired: open.delete(String(m.tool_call_id)) }).toEqual({ id: c.id, paired: true });
      }
      expect({ id: c.id, unanswered: [...open] }).toEqual({ id: c.id, unanswered: [] });
    }
  });

  test("documents indexes point at messages; the JSON and code the checks look for is there", () => {
    for (const c of cases) for (const i of c.options?.documents ?? []) expect(c.request.messages[i]).toBeDefined();
    const texts = cases.flatMap((c) => requestTexts(c.request));
    expect(texts.flatMap(jsonSpans).filter((s) => s.ok).length).toBeGreaterThan(50);
    expect(texts.flatMap(jsonSpans).every((s) => s.ok)).toBe(true);
    expect(texts.flatMap(codeBlocks).length).toBeGreaterThanOrEqual(12);
  });
});

describe("optimisation corpus: the checks catch what they must", () => {
  const c = cases.find((x) => x.id === "json-04");
  const code = cases.find((x) => x.id === "code-01");
  const edit = (req: ChatRequest, from: string, to: string): ChatRequest => ({
    ...req, messages: req.messages.map((m) => (typeof m.content === "string" ? { ...m, content: m.content.replace(from, to) } : m)),
  });

  test("an unchanged request keeps everything", () => {
    for (const x of [c, code]) {
      if (!x) throw new Error("case missing");
      const k = checkCase(x.request, x.request, x.gold);
      expect(k.gold[0]).toBe(k.gold[1]);
      expect(k.entities[0]).toBe(k.entities[1]);
      expect(k.code[0]).toBe(k.code[1]);
      expect(k.jsonEqual[0]).toBe(k.jsonEqual[1]);
    }
  });

  test("a re-serialised decimal (12.50 -> 12.5) loses a gold fact; a re-indented line loses code", () => {
    if (!c || !code) throw new Error("case missing");
    expect(checkCase(c.request, edit(c.request, "12.50", "12.5"), c.gold).gold).toEqual([2, 3]);
    const flat = edit(code.request, "            if abs(", "  if abs(");
    expect(checkCase(code.request, flat, code.gold).code[0]).toBeLessThan(checkCase(code.request, flat, code.gold).code[1]);
  });

  test("columns decode back to rows; a changed value is not deep-equal", () => {
    const rows = [{ a: 1, b: "x" }, { a: 2, b: "y" }];
    expect(decodeColumns({ data: { columns: ["a", "b"], rows: [[1, "x"], [2, "y"]] } })).toEqual({ data: rows });
    const before: ChatRequest = { model: "m", messages: [{ role: "tool", tool_call_id: "t", content: JSON.stringify({ data: rows }, null, 2) }] };
    const packed: ChatRequest = { model: "m", messages: [{ role: "tool", tool_call_id: "t", content: JSON.stringify({ data: { columns: ["a", "b"], rows: [[1, "x"], [2, "y"]] } }) }] };
    const wrong: ChatRequest = { model: "m", messages: [{ role: "tool", tool_call_id: "t", content: JSON.stringify({ data: { columns: ["a", "b"], rows: [[1, "x"], [3, "y"]] } }) }] };
    expect(checkCase(before, packed, []).jsonEqual).toEqual([1, 1]);
    expect(checkCase(before, wrong, []).jsonEqual).toEqual([0, 1]);
  });
});
