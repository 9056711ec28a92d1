// The preserve gate across stages (src/optimization/preserve-gate.ts): it counts, per fact and code
// block, the messages of the last kept request holding it, and checks a stage by what it changed;
// so a fact removed from one copy by one stage and from the last copy by a later one is caught.
import { describe, expect, test } from "bun:test";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { optimizeRequest, stageContext } from "../../src/optimization/engine.ts";
import { optimizationOptionsOf } from "../../src/optimization/options.ts";
import type { Stage } from "../../src/optimization/types.ts";

const rows = Array.from({ length: 30 }, (_, i) => ({ id: `ORD-${5000 + i}`, email: `c${i}@shop.example`, note: "left   at   the   door" }));
const FENCE = "```python\ndef total(xs):\n    return  sum(xs)\n```";

const request = (): ChatRequest => ({
  model: "gpt-4o-mini",
  messages: [
    { role: "system", content: "You answer questions about orders." },
    { role: "user", content: `The export:\n${JSON.stringify({ rows }, null, 2)}\nThe helper:\n${FENCE}\n` },
    { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "lookup", arguments: "{\"id\":\"ORD-5004\"}" } }] },
    { role: "tool", tool_call_id: "c1", content: JSON.stringify({ history: rows.slice(0, 12) }, null, 4) },
    { role: "user", content: "Which e-mail belongs to ORD-5004?" },
  ],
});

/** A stage rewriting message `at`'s text with `edit`. */
const editing = (name: Stage["name"], at: number, edit: (text: string) => string): Stage => ({
  name, from: "safe",
  run: (req) => ({ ...req, messages: req.messages.map((m, i) => (i === at && typeof m.content === "string" ? { ...m, content: edit(m.content) } : m)) }),
});
/** Saves tokens without touching a fact or the code block. */
const squeeze = (t: string): string => t.replaceAll("left   at   the   door", "left at the door");
const ctx = () => stageContext(request(), optimizationOptionsOf({ mode: "safe" }, undefined, 5), null);
const run = (stages: Stage[]) => {
  const req = request();
  return optimizeRequest(req, stageContext(req, optimizationOptionsOf({ mode: "safe" }, undefined, req.messages.length), null), stages).trace.stages;
};

describe("the preserve gate counts copies across stages", () => {
  test("one copy of a fact may go while another stays; the last copy may not, even by a later stage", () => {
    const fromUser = editing("json_minify", 1, (t) => squeeze(t.replace("c4@shop.example", "c4")));
    const fromTool = editing("whitespace", 3, (t) => squeeze(t.replace("c4@shop.example", "c4")));
    expect(run([fromUser, fromTool]).map((s) => [s.applied, s.reverted_reason])).toEqual([[true, undefined], [false, "preserve"]]);
    expect(run([fromTool, fromUser]).map((s) => [s.applied, s.reverted_reason])).toEqual([[true, undefined], [false, "preserve"]]);
    // A stage reverted for no gain leaves the counts as they were: the tool's copy may then go.
    const noGain = editing("json_minify", 1, (t) => `${t.replace("c4@shop.example", "c4")} (and more words than it saves)`);
    expect(run([noGain, fromTool]).map((s) => [s.applied, s.reverted_reason])).toEqual([[false, "no_gain"], [true, undefined]]);
  });

  test("a fact a kept stage moved into another message is held there", () => {
    const move = editing("json_minify", 1, (t) => squeeze(t.replace('"ORD-5020"', '"the order"')));
    const into = editing("json_minify", 3, (t) => `${t} (see "ORD-5020")`);
    const drop = editing("whitespace", 3, (t) => t.replace(' (see "ORD-5020")', ""));
    const both: Stage = { name: "json_minify", from: "safe", run: (req) => into.run(move.run(req, ctx())!, ctx()) };
    expect(run([both, drop]).map((s) => [s.applied, s.reverted_reason])).toEqual([[true, undefined], [false, "preserve"]]);
  });

  test("code blocks: none lost, none new, even one stage after another", () => {
    const dropFence = editing("whitespace", 1, (t) => squeeze(t.replace(FENCE, "")));
    const newFence = editing("whitespace", 3, (t) => `${squeeze(t)}\n\`\`\`\nx  = 1\n\`\`\``);
    const tidyFence = editing("json_minify", 1, (t) => squeeze(t).replace("return  sum", "return sum"));
    expect(run([dropFence])[0]).toMatchObject({ applied: false, reverted_reason: "preserve" });
    expect(run([newFence])[0]).toMatchObject({ applied: false, reverted_reason: "preserve" });
    expect(run([editing("json_minify", 3, squeeze), tidyFence]).map((s) => [s.applied, s.reverted_reason])).toEqual([[true, undefined], [false, "preserve"]]);
  });
});
