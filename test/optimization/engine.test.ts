// The token engine (docs/optimization.md "Gates"): stages run by mode, a stage that does not lower the
// count or loses a fact is reverted with its reason, and the trace's arithmetic holds.
import { describe, expect, test } from "bun:test";
import { countMessageTokens } from "../../src/analysis/tokens.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { optimizeRequest, requestTokens, SMALL_MESSAGE_TOKENS, stageContext } from "../../src/optimization/engine.ts";
import { entitiesOf } from "../../src/optimization/gates.ts";
import { optimizationOptionsOf } from "../../src/optimization/options.ts";
import { STAGES } from "../../src/optimization/stages/index.ts";
import type { Stage } from "../../src/optimization/types.ts";

const rows = Array.from({ length: 30 }, (_, i) => ({ id: `ORD-${5000 + i}`, total: 10 + i * 2.5, email: `c${i}@shop.example`, status: i % 3 ? "shipped" : "open" }));
const POLICY = "Refund policy v2: 30 days from 2026-01-15 for orders over 25.00 EUR, see https://shop.example/refunds?lang=en or write to refunds@shop.example.";
const prose = Array.from({ length: 40 }, (_, i) => `Line ${i}:   the   report   says   order   ORD-${5000 + i}   shipped.   `).join("\n\n\n") + '\nThe label reads "fragile   glass".' + `\n${POLICY}`.repeat(2);

const base = (): ChatRequest => ({
  model: "gpt-4o-mini",
  messages: [
    { role: "system", content: "You answer questions about orders." },
    { role: "user", content: `Here is the export:\n${JSON.stringify({ rows }, null, 2)}\nAnd the notes:\n${prose}` },
    { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "lookup", arguments: "{\"id\":\"ORD-5003\"}" } }] },
    { role: "tool", tool_call_id: "c1", content: JSON.stringify({ order: rows[3], history: rows.slice(0, 12) }, null, 4) },
    { role: "user", content: "What is the total of ORD-5003?" },
  ],
});

const run = (req: ChatRequest, raw: Record<string, unknown>, stages: readonly Stage[] = STAGES) =>
  optimizeRequest(req, stageContext(req, optimizationOptionsOf(raw, undefined, req.messages.length), null), stages);

/** A stage that rewrites the first long user text with `edit` (test input for the gates). */
const editing = (name: Stage["name"], edit: (text: string) => string, from: Stage["from"] = "safe"): Stage => ({
  name, from,
  run: (req) => ({ ...req, messages: req.messages.map((m, i) => (i === 1 && typeof m.content === "string" ? { ...m, content: edit(m.content) } : m)) }),
});

describe("counting", () => {
  test("a request's count is countMessageTokens' for requests within its exact range", () => {
    const req: ChatRequest = { model: "m", messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Total of ORD-5003?", name: "ann" }] };
    expect(requestTokens(req)).toBe(countMessageTokens(req.messages));
  });
});

describe("the trace", () => {
  test("safe mode minifies and collapses: final = original minus each applied stage's saving", () => {
    const req = base();
    const { request, trace } = run(req, { mode: "safe" });
    expect(trace.mode).toBe("safe");
    expect(trace.stages.map((s) => s.name)).toEqual(["json_minify", "whitespace", "dedupe_documents", "cache_align"]);
    expect(trace.stages.slice(2).every((s) => !s.applied && !s.reverted_reason)).toBe(true);
    expect(trace.stages.slice(0, 2).every((s) => s.applied)).toBe(true);
    const saved = trace.stages.filter((s) => s.applied).reduce((n, s) => n + s.before_tokens - s.after_tokens, 0);
    expect(trace.final_tokens).toBe(trace.original_tokens - saved);
    expect(trace.original_tokens).toBe(requestTokens(req));
    expect(trace.final_tokens).toBe(requestTokens(request));
    expect(trace.final_tokens).toBeLessThan(trace.original_tokens * 0.8);
    expect(trace.stages[1]!.before_tokens).toBe(trace.stages[0]!.after_tokens);
    // The caller's request is not changed; small messages and the assistant's call are the same objects.
    expect(req).toEqual(base());
    expect(request.messages[0]).toBe(req.messages[0]!);
    expect(request.messages[2]).toBe(req.messages[2]!);
    expect(request.messages[4]).toBe(req.messages[4]!);
    expect(request.messages[3]!.content).toBe(JSON.stringify({ order: rows[3], history: rows.slice(0, 12) }));
  });

  test("off and a mode below a stage's run nothing", () => {
    expect(run(base(), { mode: "off" }).trace.stages).toEqual([]);
    const balancedOnly = editing("columnar_arrays", (t) => t.slice(0, 10), "balanced");
    expect(run(base(), { mode: "safe" }, [balancedOnly]).trace.stages).toEqual([]);
    expect(run(base(), { mode: "balanced" }, [balancedOnly]).trace.stages.map((s) => s.name)).toEqual(["columnar_arrays"]);
  });
});

describe("the token gate", () => {
  test("a stage that does not lower the count is reverted no_gain", () => {
    const { request, trace } = run(base(), { mode: "safe" }, [editing("whitespace", (t) => `${t} (checked)`)]);
    expect(trace.stages[0]).toMatchObject({ name: "whitespace", applied: false, reverted_reason: "no_gain" });
    expect(trace.final_tokens).toBe(trace.original_tokens);
    expect(request.messages[1]!.content).toBe(base().messages[1]!.content);
  });

  test("a stage that throws is reverted error, and the next one still runs", () => {
    const throwing: Stage = { name: "dedupe_documents", from: "safe", run: () => { throw new Error("bug"); } };
    const { trace } = run(base(), { mode: "safe" }, [throwing, STAGES[1]!]);
    expect(trace.stages[0]).toMatchObject({ applied: false, reverted_reason: "error" });
    expect(trace.stages[1]).toMatchObject({ name: "whitespace", applied: true });
  });
});

describe("the preserve gate", () => {
  const revertedBy = (edit: (t: string) => string, raw: Record<string, unknown> = { mode: "safe" }) =>
    run(base(), raw, [editing("whitespace", edit)]).trace.stages[0];

  test("a lost number, id, e-mail, date, URL or quoted string reverts the stage", () => {
    expect(revertedBy((t) => t.replace("ORD-5017", "order"))).toMatchObject({ applied: false, reverted_reason: "preserve" });
    expect(revertedBy((t) => t.replace("c20@shop.example", "c20"))).toMatchObject({ reverted_reason: "preserve" });
    expect(revertedBy((t) => t.replace("\"fragile   glass\"", "fragile glass"))).toMatchObject({ reverted_reason: "preserve" });
    // Whitespace inside quotes is not a fact; the words are.
    expect(revertedBy((t) => t.replace("\"fragile   glass\"", "\"fragile glass\""))).toMatchObject({ applied: true });
    // c4's e-mail is also in the tool result: one copy left is enough.
    expect(revertedBy((t) => t.replace("c4@shop.example", "c4"))).toMatchObject({ applied: true });
    expect(revertedBy((t) => t.replace("47.5", "47"))).toMatchObject({ reverted_reason: "preserve" });
  });

  test("a quote that closes a string opens none: JSON punctuation between strings is no fact", () => {
    expect(entitiesOf(`{"a":"x","total":12.5,"b":"y"}`).sort()).toEqual(['"a"', '"b"', '"total"', '"x"', '"y"', "12.5"]);
    expect(entitiesOf(`say "hello  world" and "bye"`).sort()).toEqual(['"bye"', '"hello world"']);
    // A string past the quote limit is no fact, but the pairing after it stays in step.
    expect(entitiesOf(`{"body":"${"x".repeat(300)}","source":"kb-shipping"}`).sort()).toEqual(['"body"', '"kb-shipping"', '"source"']);
  });

  test("a fact that is still present once (a de-duplicated copy) passes", () => {
    const second = (t: string) => `${t.slice(0, t.lastIndexOf(POLICY))}[refund policy: as above]`;
    expect(revertedBy(second)).toMatchObject({ applied: true });
    expect(revertedBy((t) => t.replaceAll(POLICY, "[refund policy]"))).toMatchObject({ applied: false, reverted_reason: "preserve" });
  });

  test("preserve literals and regex matches of the original must survive", () => {
    const dropWord = (t: string) => t.replace("notes:", "");
    expect(revertedBy(dropWord)).toMatchObject({ applied: true });
    expect(revertedBy(dropWord, { mode: "safe", preserve: ["notes:"] })).toMatchObject({ applied: false, reverted_reason: "preserve" });
    expect(revertedBy(dropWord, { mode: "safe", preserve: [{ regex: "n[aeiou]tes:" }] })).toMatchObject({ reverted_reason: "preserve" });
    expect(revertedBy(dropWord, { mode: "safe", preserve: ["not in the request"] })).toMatchObject({ applied: true });
  });

  test("fenced code stays byte-identical", () => {
    const req = base();
    req.messages[1] = { role: "user", content: `${req.messages[1]!.content as string}\n\`\`\`python\ndef f(x):\n    return  x  *  2\n\`\`\`\n` };
    const { trace } = optimizeRequest(req, stageContext(req, optimizationOptionsOf({ mode: "safe" }, undefined, 5), null), [
      editing("whitespace", (t) => t.replace("return  x  *  2", "return x * 2")),
    ]);
    expect(trace.stages[0]).toMatchObject({ applied: false, reverted_reason: "preserve" });
  });

  test("do_not_compress messages and small ones are left as they are", () => {
    const req = base();
    const { request } = run(req, { mode: "safe", do_not_compress: [1] });
    expect(request.messages[1]).toBe(req.messages[1]!);
    expect(request.messages[3]).not.toBe(req.messages[3]!);
    const byRole = run(req, { mode: "safe", do_not_compress: ["tool", "last_user"] });
    expect(byRole.request.messages[3]).toBe(req.messages[3]!);
    const ctx = stageContext(req, optimizationOptionsOf({ mode: "safe" }, undefined, 5), null);
    expect([...ctx.untouchable].sort()).toEqual([0, 2, 4]);
    expect(SMALL_MESSAGE_TOKENS).toBe(250);
  });

  test("a stage changing a do_not_compress message is reverted", () => {
    const { trace } = run(base(), { mode: "safe", do_not_compress: [1] }, [editing("whitespace", (t) => t.replaceAll("   ", " "))]);
    expect(trace.stages[0]).toMatchObject({ applied: false, reverted_reason: "preserve" });
  });

  test("fields: facts in dropped fields may go, the rest may not", () => {
    const req = base();
    const { request, trace } = run(req, { mode: "safe", fields: { drop: ["$.history[*].email", "$.rows[*].email"] } });
    expect(trace.stages[0]).toMatchObject({ name: "json_minify", applied: true });
    expect(String(request.messages[3]!.content)).not.toContain("c1@shop.example");
    expect(String(request.messages[3]!.content)).toContain("ORD-5011");
  });
});

test("the stage list follows STAGE_NAMES", async () => {
  const { STAGE_NAMES } = await import("../../src/optimization/types.ts");
  expect(STAGES.map((s) => s.name)).toEqual([...STAGE_NAMES]);
});
