// The engine's cost per request (issue 23's overhead targets): a ~20k-token agent request, a request
// under 1k tokens, a small chat, and mode off. Each timed call gets its own variant (digits redrawn),
// so neither the per-message memos nor the tokenizer's pretoken memo serve a repeat.
import { countTextTokens, messageText } from "../../src/analysis/tokens.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import type { OptimizationMode } from "../../src/optimization/types.ts";
import type { OptCase } from "../../test/fixtures/optimization/corpus.ts";
import { rng } from "../../test/fixtures/optimization/rows.ts";
import { median, percentiles } from "../lib/stats.ts";
import { exactTokens, optimizeCase } from "./evaluate.ts";

type Tokenizer = typeof import("gpt-tokenizer");
const library = require("gpt-tokenizer") as Tokenizer;
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** Every digit redrawn from 1-9 (never 0, so JSON numbers stay valid): same shape, new numbers. */
function variant(c: OptCase, seed: number): OptCase {
  const r = rng(seed);
  const redraw = (s: string): string => s.replace(/\d/g, () => String(1 + Math.floor(r() * 9)));
  const request: ChatRequest = {
    ...c.request,
    messages: c.request.messages.map((m) => ({
      ...m,
      content: typeof m.content === "string" ? redraw(m.content) : m.content,
      ...(m.tool_calls ? { tool_calls: m.tool_calls.map((t) => ({ ...t, function: { ...t.function, arguments: redraw(t.function.arguments) } })) } : {}),
    })),
  };
  return { ...c, request };
}

/** One request of about `target` tokens: the cases' messages after one system prompt, tool pairs whole. */
export function composite(cases: readonly OptCase[], target: number, id: string): OptCase {
  const first = cases[0];
  if (!first) throw new Error("no cases");
  const messages = [...first.request.messages];
  const tools = [...(first.request.tools ?? [])];
  for (const c of cases.slice(1)) {
    if (exactTokens({ model: "gpt-4o", messages, tools }) >= target) break;
    messages.push(...c.request.messages.filter((m) => m.role !== "system"));
    for (const t of c.request.tools ?? []) if (!tools.some((u) => u.function.name === t.function.name)) tools.push(t);
  }
  return { id, type: "agent", about: "composite", question: first.question, gold: first.gold, request: { model: "gpt-4o", messages, tools } };
}

export interface Overhead {
  label: string;
  tokens: number;
  mode: OptimizationMode;
  p50: number;
  p95: number;
  p99: number;
  iterations: number;
  /** Medians of each stage's ms (trace.optimization) and of the rest: options, the context's
   * counting, the preserve gate's reading of the original, the token counts between stages. */
  split: Record<string, number>;
}

/** `fresh`: each call on its own variant (new numbers, as real traffic has); otherwise each call on
 * a copy of the same request (the tokenizer's pretoken memo then holds all of it). */
export function timeEngine(label: string, c: OptCase, mode: OptimizationMode, iterations: number, fresh = true): Overhead {
  const WARM = 20;
  const inputs = Array.from({ length: iterations + WARM }, (_, i) => (fresh ? variant(c, 9000 + i) : structuredClone(c)));
  const ms: number[] = [];
  const parts: Record<string, number[]> = {};
  inputs.forEach((v, i) => {
    const { ms: took, trace } = optimizeCase(v, mode);
    if (i < WARM) return; // the first calls: JIT warm-up
    ms.push(took);
    let inStages = 0;
    for (const st of trace.stages) ((parts[st.name] ??= []).push(st.ms), (inStages += st.ms));
    (parts["outside stages"] ??= []).push(took - inStages);
  });
  const p = percentiles(ms);
  const split = Object.fromEntries(Object.entries(parts).map(([k, xs]) => [k, median(xs)]));
  return { label: fresh ? label : `${label}, repeated`, tokens: exactTokens(c.request), mode, p50: p.p50, p95: p.p95, p99: p.p99, iterations, split };
}

export interface Floor {
  label: string;
  tokens: number;
  /** One exact count of every text: gw's counter (analysis/tokens.ts, its memo warm as in traffic),
   * and gpt-tokenizer's own countTokens. */
  ours: { p50: number; p95: number };
  library: { p50: number; p95: number };
  /** What a request sent to the engine's worker costs the request thread: structured clones of the
   * request and of the optimised one (postMessage's work). */
  clones: { p50: number; p95: number };
}

/** The floor under the engine's time for one request, each call on a fresh variant. */
export function countFloor(label: string, c: OptCase, iterations: number): Floor {
  const ours: number[] = [];
  const lib: number[] = [];
  const clones: number[] = [];
  for (let i = 0; i < iterations + 10; i++) {
    const v = variant(c, 5000 + i);
    const texts = v.request.messages.map(messageText);
    let t0 = performance.now();
    for (const t of texts) countTextTokens(t);
    const a = performance.now() - t0;
    t0 = performance.now();
    for (const t of texts) library.countTokens(t, AS_TEXT);
    const b = performance.now() - t0;
    const { request } = optimizeCase(v, "safe");
    t0 = performance.now();
    structuredClone(v.request);
    structuredClone(request);
    const d = performance.now() - t0;
    if (i < 10) continue;
    ours.push(a), lib.push(b), clones.push(d);
  }
  const p = (xs: number[]) => ({ p50: percentiles(xs).p50, p95: percentiles(xs).p95 });
  return { label, tokens: exactTokens(c.request), ours: p(ours), library: p(lib), clones: p(clones) };
}
