// safe mode over seeded random texts (docs/optimization.md "Gates"): prose with runs of spaces and blank
// lines, pretty JSON, fenced, <pre> and indented code, hard-wrapped items with code under them. Whatever
// the engine sends: code byte for byte, every JSON value deep-equal, every other character in order.
import { describe, expect, test } from "bun:test";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { optimizeRequest, stageContext } from "../../src/optimization/engine.ts";
import { optimizationOptionsOf } from "../../src/optimization/options.ts";
import { STAGES } from "../../src/optimization/stages/index.ts";
import { prng as rng } from "../../bench/lib/prng.ts";


const WORDS = ["order", "ORD-4411", "shipped", "12.50", "on", "2026-11-14", "to", "ann@example.com", "see", "https://x.example/a?b=1", "\"quoted  words\"", "the", "total"];

function randomText(r: () => number): { text: string; code: string[]; json: unknown[] } {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const space = () => " ".repeat(1 + Math.floor(r() * 4));
  const code: string[] = [];
  const json: unknown[] = [];
  const parts: string[] = [];
  for (let b = 0; b < 12; b++) {
    const kind = Math.floor(r() * 6);
    if (kind === 0) {
      const block = `\`\`\`python\ndef f(x):\n    if  x:\n        return  x  *  ${Math.floor(r() * 99)}\n\n\n    return  0\n\`\`\``;
      code.push(block);
      parts.push(block);
    } else if (kind === 1) {
      const value = { id: `ORD-${Math.floor(r() * 9999)}`, rows: Array.from({ length: 3 + Math.floor(r() * 5) }, (_, i) => ({ i, v: Math.floor(r() * 1000) / 100, s: "a  b" })) };
      json.push(value);
      parts.push(r() < 0.5 ? JSON.stringify(value, null, 2) : `The API returned: ${JSON.stringify(value, null, 4)}`);
    } else if (kind === 2) {
      const block = `<pre>\ncol1    col2\n  a       b\n</pre>`;
      code.push(block);
      parts.push(block);
    } else if (kind === 3) {
      const block = `    indented  code  line ${Math.floor(r() * 9)}\n\tx  =  1`;
      code.push(block);
      parts.push(block);
    } else {
      parts.push(Array.from({ length: 30 }, () => pick(WORDS)).map((w) => w + space()).join("") + "\n".repeat(1 + Math.floor(r() * 4)) + `- item${space()}one\n  - nested${space()}two`);
    }
  }
  return { text: parts.join("\n".repeat(1 + Math.floor(r() * 3))), code, json };
}

const ink = (s: string): string => s.replace(/\s+/g, "");

describe("safe mode over 300 seeded random texts", () => {
  test("code byte for byte, JSON deep-equal, every other character in order, counts down", () => {
    let applied = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const { text, code, json } = randomText(rng(seed));
      const req: ChatRequest = { model: "m", messages: [{ role: "system", content: "Answer briefly." }, { role: "user", content: text }] };
      const { request, trace } = optimizeRequest(req, stageContext(req, optimizationOptionsOf({ mode: "safe" }, undefined, 2), null), STAGES);
      const out = String(request.messages[1]!.content);
      for (const block of code) expect(out).toContain(block);
      for (const value of json) expect(out).toContain(JSON.stringify(value));
      // Whitespace is all that may differ outside the JSON documents.
      expect(ink(out)).toBe(ink(text));
      expect(trace.final_tokens).toBeLessThanOrEqual(trace.original_tokens);
      if (trace.stages.some((s) => s.applied)) applied++;
      expect(trace.stages.some((s) => s.reverted_reason === "preserve" || s.reverted_reason === "error")).toBe(false);
    }
    expect(applied).toBeGreaterThan(250);
  });
});

/** Hard-wrapped items (a PDF's clauses) with double and no-break spaces, beside code that follows an
 * item: after a line ending with ":", under a short item, deeper than the item's text, in a fence. */
function wrappedText(r: () => number): { text: string; code: string[]; collapsed: string[] } {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const gap = () => pick(["  ", " ", "\u00a0", " \u00a0", "   "]);
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(gap());
  const long = (pad: string) => { let s = pad + words(12); while (s.length < 70) s += gap() + pick(WORDS); return s; };
  const code: string[] = [];
  const collapsed: string[] = [];
  const parts: string[] = [];
  for (let b = 0; b < 8; b++) {
    const marker = pick(["7.1", "10.2", "(a)", "-", "*", "3."]);
    const head = `${marker}${" ".repeat(1 + Math.floor(r() * 4))}`;
    const pad = " ".repeat(head.length);
    const kind = Math.floor(r() * 4);
    if (kind === 0) {
      const next = long(pad);
      if (pad.length >= 4) collapsed.push(pad + next.slice(pad.length).replace(/[ \u00a0]+/g, " "));
      parts.push([long(head), next, `${pad}${words(3)}`].join("\n"));
    }
    else {
      const first = kind === 1 ? `${long(head)}:` : kind === 2 ? `${head}${words(2)}` : long(head);
      const indent = kind === 3 ? `${pad}    ` : pad.length >= 4 ? pad : "    ";
      const block = kind === 3 && r() < 0.5
        ? `${pad}\`\`\`\n${pad}x  =  ${Math.floor(r() * 99)}\n${pad}\`\`\``
        : `${indent}x  =  "a  b"\n${indent}y\u00a0=  ${Math.floor(r() * 99)}`;
      code.push(block);
      parts.push(`${first}\n${block}`);
    }
  }
  return { text: parts.join("\n\n"), code, collapsed };
}

describe("safe mode over 300 seeded hard-wrapped texts", () => {
  test("an item's continuation lines collapse; code under an item stays byte for byte", () => {
    const inkOf = (s: string): string => s.replace(/[\s\u00a0]+/g, "");
    let applied = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const { text, code, collapsed } = wrappedText(rng(seed));
      const req: ChatRequest = { model: "m", messages: [{ role: "user", content: text }] };
      const { request, trace } = optimizeRequest(req, stageContext(req, optimizationOptionsOf({ mode: "safe" }, undefined, 1), null), STAGES);
      const out = String(request.messages[0]!.content);
      for (const block of code) expect(out).toContain(block);
      if (trace.stages.find((s) => s.name === "whitespace")?.applied) for (const line of collapsed) expect(out.split("\n")).toContain(line);
      expect(inkOf(out)).toBe(inkOf(text));
      expect(trace.stages.some((s) => s.reverted_reason === "preserve" || s.reverted_reason === "error")).toBe(false);
      if (out !== text) applied++;
    }
    expect(applied).toBeGreaterThan(250);
  });
});
