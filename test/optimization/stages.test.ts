// json_minify and whitespace (docs/optimization.md "Stages"): what each changes and what it never
// touches, checked on the stage functions the engine runs.
import { describe, expect, test } from "bun:test";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { stageContext } from "../../src/optimization/engine.ts";
import { optimizationOptionsOf } from "../../src/optimization/options.ts";
import { jsonMinify, jsonSpans, minifyJsonText } from "../../src/optimization/stages/json-minify.ts";
import { collapseWhitespace, whitespace } from "../../src/optimization/stages/whitespace.ts";

const pad = "filler text that makes this message long enough to be worth compressing. ".repeat(60);
const one = (role: "user" | "system" | "tool" | "assistant", content: string): ChatRequest => ({
  model: "m", messages: [role === "tool" ? { role, content, tool_call_id: "c" } : { role, content }],
});
const ctxOf = (req: ChatRequest, raw: Record<string, unknown> = { mode: "safe" }) =>
  stageContext(req, optimizationOptionsOf(raw, undefined, req.messages.length), null);
const minify = (req: ChatRequest, raw?: Record<string, unknown>) => {
  const ctx = ctxOf(req, raw);
  const out = jsonMinify.run(req, ctx);
  if (out) expect(jsonMinify.verify!(req, out, ctx)).toBe(true);
  return out?.messages[0]!.content ?? null;
};

describe("json_minify", () => {
  const doc = { data: Array.from({ length: 40 }, (_, i) => ({ id: `ORD-${i}`, total: 1.5 * i, tags: ["a b", "c"] })), page: 1 };

  test("a tool result that is JSON is re-emitted without whitespace", () => {
    expect(minify(one("tool", JSON.stringify(doc, null, 2)))).toBe(JSON.stringify(doc));
  });

  test("literals stay as written: trailing zeros, 64-bit ids, exponents, escapes, spaces in strings", () => {
    const text = `{\n  "invoice_id": 9007199254740993,\n  "unit_price": 12.50,\n  "weight": 1.5e1,\n  "who": "M\\u00fcller  &  S\\u00f6hne",\n  "note": "a \\"quoted\\" word"\n}`;
    const req = one("user", `${pad}\n${text}`);
    expect(minify(req)).toBe(`${pad}\n{"invoice_id":9007199254740993,"unit_price":12.50,"weight":1.5e1,"who":"M\\u00fcller  &  S\\u00f6hne","note":"a \\"quoted\\" word"}`);
    expect(minifyJsonText("[ 1 ,\t2 ]")).toBe("[1,2]");
  });

  test("JSON inside prose, after a colon and in a ```json fence; never in other fences", () => {
    const pretty = JSON.stringify(doc, null, 2);
    const text = `${pad}\nThe API said: ${pretty}\nthen\n\`\`\`json\n${pretty}\n\`\`\`\nand the code:\n\`\`\`js\nconst x = ${pretty};\n\`\`\`\nDone.`;
    const out = minify(one("user", text));
    expect(out).toBe(`${pad}\nThe API said: ${JSON.stringify(doc)}\nthen\n\`\`\`json\n${JSON.stringify(doc)}\n\`\`\`\nand the code:\n\`\`\`js\nconst x = ${pretty};\n\`\`\`\nDone.`);
    expect(jsonSpans(text).length).toBe(2);
  });

  test("bracketed log lines are passed over cheaply, and a document after them is still found", () => {
    const logLines = Array.from({ length: 200 }, (_, i) => `[2026-11-14 10:${String(i % 60).padStart(2, "0")}] worker-${i} failed [code ${i}]`).join("\n");
    const text = `${logLines}\n${JSON.stringify(doc, null, 2)}`;
    expect(jsonSpans(text).map((s) => s.value)).toEqual([doc]);
    expect(minify(one("tool", text))).toBe(`${logLines}\n${JSON.stringify(doc)}`);
  });

  test("developer messages are minified like system ones", () => {
    const req: ChatRequest = { model: "m", messages: [{ role: "developer", content: JSON.stringify(doc, null, 2) }] };
    expect(minify(req)).toBe(JSON.stringify(doc));
  });

  test("assistant texts, small messages and text that only looks like JSON are left alone", () => {
    expect(minify(one("assistant", JSON.stringify(doc, null, 2)))).toBeNull();
    expect(minify(one("user", JSON.stringify({ a: [1, 2] }, null, 2)))).toBeNull();
    expect(minify(one("user", `${pad}\n[see the note]\n{ not: json }\n[1] Smith et al.`))).toBeNull();
  });

  test("fields: keep projects, drop removes, both by path", () => {
    const text = JSON.stringify(doc, null, 2);
    expect(JSON.parse(String(minify(one("tool", text), { mode: "safe", fields: { keep: ["$.data[*].id"] } })))).toEqual({ data: doc.data.map((r) => ({ id: r.id })) });
    expect(JSON.parse(String(minify(one("tool", text), { mode: "safe", fields: { drop: ["$.data[*].tags", "$.page"] } })))).toEqual({ data: doc.data.map(({ id, total }) => ({ id, total })) });
    expect(JSON.parse(String(minify(one("tool", text), { mode: "safe", fields: { keep: ["$.data[1]"] } })))).toEqual({ data: [doc.data[1]] });
    // A keep list that reaches nothing in a document leaves it whole (minified).
    expect(minify(one("tool", text), { mode: "safe", fields: { keep: ["$.nothing"] } })).toBe(JSON.stringify(doc));
  });

  test("verify refuses a changed value", () => {
    const req = one("tool", JSON.stringify(doc, null, 2));
    const ctx = ctxOf(req);
    const out = jsonMinify.run(req, ctx)!;
    const tampered = { ...out, messages: [{ ...out.messages[0]!, content: String(out.messages[0]!.content).replace("ORD-3", "ORD-4") }] };
    expect(jsonMinify.verify!(req, tampered, ctx)).toBe(false);
  });
});

describe("whitespace", () => {
  test("interior runs, trailing blanks and blank-line runs collapse", () => {
    expect(collapseWhitespace("a   b\t\tc  \n\n\n\nd\r\n  e    f")).toBe("a b c\n\nd\r\n  e f");
  });

  test("fenced code, <pre>, inline code and indented lines are kept byte for byte", () => {
    const text = [
      "Intro   text.", "```python", "def f(x):", "    return  x  *  2", "", "", "", "```",
      "<PRE class=x>", "a    b", "</pre>", "Use `a   b` here   now.", "    indented    code", "\tx  =  1", "~~~", "k   v", "~~~",
    ].join("\n");
    expect(collapseWhitespace(text)).toBe(text.replace("Intro   text.", "Intro text.").replace("here   now.", "here now."));
  });

  test("a no-break space becomes a space outside code; a run holding one becomes one space", () => {
    const nb = "\u00a0";
    expect(collapseWhitespace(`Prix${nb}: 45${nb}500${nb}€ TTC${nb}; «${nb}Offre${nb} ${nb}limitée${nb}»${nb}`)).toBe("Prix : 45 500 € TTC ; « Offre limitée »");
    const kept = ["```", `a${nb}=${nb}1`, "```", `Use \`x${nb}y\` here.`, `    indented${nb}code`, `{"name": "a${nb}b"}`];
    expect(collapseWhitespace(kept.join("\n"))).toBeNull();
  });

  test("a hard-wrapped item's lines, indented to its text column, collapse like the item; code under an item does not", () => {
    const clause = [
      "7.1   Customer  shall  pay  the  fees  set  out  in  Order  Form  OF-2026-118  within  thirty  (30)  days  of  the",
      "      invoice  date.   Late  payments  accrue  interest  at  1.5%  per  month  or  the  maximum  rate  permitted",
      "      by  law.",
      "      not  under  the  item:  the  line  above  was  short",
    ].join("\n");
    expect(collapseWhitespace(clause)).toBe([
      "7.1 Customer shall pay the fees set out in Order Form OF-2026-118 within thirty (30) days of the",
      "      invoice date. Late payments accrue interest at 1.5% per month or the maximum rate permitted",
      "      by law.",
      "      not  under  the  item:  the  line  above  was  short",
    ].join("\n"));
    expect(collapseWhitespace("(a)  The  supplier  delivers  the  goods  to  the  address  in  the  order  form\n     within  ten  days.")).toBe(
      "(a) The supplier delivers the goods to the address in the order form\n     within ten days.");
    // Kept: a line ending with ":" introduces code, a fence under an item, another indentation, a short item.
    const kept = [
      "1.  Run this on the build host before you go on to the next step of the guide:", "    npm  install  --save",
      "2.  Update the SDK to the latest version, then restart every worker in the pool", "    ```bash", "    npm  i", "    ```",
      "3.  Check the logs of the first worker after the restart, then the second one", "        x  =  1",
      "4.  Short item", "    y  =  2",
    ];
    const out = collapseWhitespace(kept.join("\n"))!.split("\n");
    expect(out.filter((line, i) => line !== kept[i])).toEqual([
      "1. Run this on the build host before you go on to the next step of the guide:",
      "2. Update the SDK to the latest version, then restart every worker in the pool",
      "3. Check the logs of the first worker after the restart, then the second one", "4. Short item",
    ]);
  });

  test("JSON texts and small or do_not_compress messages are skipped", () => {
    expect(collapseWhitespace('{"a": "x   y"}')).toBeNull();
    const small = one("user", "a    b");
    expect(whitespace.run(small, ctxOf(small))).toBeNull();
    const big = one("user", `${pad}   end`);
    expect(whitespace.run(big, ctxOf(big))?.messages[0]!.content).toBe(`${pad.trimEnd()} end`);
    expect(whitespace.run(big, ctxOf(big, { mode: "safe", do_not_compress: ["user"] }))).toBeNull();
  });

  test("verify holds when only whitespace changed, and not otherwise", () => {
    const req = one("user", `${pad}   end`);
    const out = whitespace.run(req, ctxOf(req))!;
    expect(whitespace.verify!(req, out, ctxOf(req))).toBe(true);
    const tampered = { ...out, messages: [{ role: "user" as const, content: `${pad} ends` }] };
    expect(whitespace.verify!(req, tampered, ctxOf(req))).toBe(false);
    // Flattened indentation is refused even though every other character is the same.
    const code = one("user", `${pad}\ndef f(x):\n  if x:\n    return 1`);
    const flat = one("user", `${pad}\ndef f(x):\nif x:\nreturn 1`);
    expect(whitespace.verify!(code, flat, ctxOf(code))).toBe(false);
  });
});

test("fields never re-serialise a number that would change: such a document is only minified", () => {
  const text = `{\n  "id": 9007199254740993,\n  "price": 12.50,\n  "note": "x"\n}`;
  const big: ChatRequest = { model: "m", messages: [{ role: "tool", tool_call_id: "c", content: `[${Array(80).fill(text).join(",\n")}]` }] };
  const out = minify(big, { mode: "safe", fields: { drop: ["$[*].note"] } });
  expect(out).toBe(`[${Array(80).fill('{"id":9007199254740993,"price":12.50,"note":"x"}').join(",")}]`);
  // Numbers JSON.stringify writes as they were: fields apply.
  const plain: ChatRequest = { model: "m", messages: [{ role: "tool", tool_call_id: "c", content: JSON.stringify(Array(80).fill({ id: 7, price: 12.5, note: "x" }), null, 2) }] };
  expect(minify(plain, { mode: "safe", fields: { drop: ["$[*].note"] } })).toBe(JSON.stringify(Array(80).fill({ id: 7, price: 12.5 })));
});
