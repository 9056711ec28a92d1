// cache_align through the real request builders: 10 turns of a session whose client reorders tool
// keys every turn reach the OpenAI-compatible and the Anthropic wire with turn 1's stable part
// byte-identical; Anthropic's breakpoints sit on it, and a caller's own marks are left alone.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { countMessageTokens, countTextTokens } from "../../src/analysis/tokens.ts";
import type { ChatMessage, ChatRequest } from "../../src/canonical/chat.ts";
import { cacheAlign } from "../../src/optimization/stages/cache-align.ts";
import type { StageContext } from "../../src/optimization/types.ts";
import { withCacheBreakpoints } from "../../src/providers/anthropic/cache-breakpoints.ts";
import { buildRequest as anthropicRequest } from "../../src/providers/anthropic/request.ts";
import type { MessagesBody } from "../../src/providers/anthropic/wire.ts";
import { buildRequest as openaiRequest } from "../../src/providers/openai-compatible/request.ts";
import type { ProviderCall } from "../../src/providers/types.ts";
import { buildCatalog } from "../../src/routing/catalog.ts";
import { firstTurn, question, shuffledKeys, TOOLS } from "./cache-align-tools.ts";

const ctx: StageContext = {
  options: { mode: "safe", preserve: [], do_not_compress: [], documents: [], fields: { keep: [], drop: [] } },
  untouchable: new Set<number>(),
  windowTokens: null,
  countTokens: (req) => countMessageTokens(req.messages) + (req.tools ? countTextTokens(JSON.stringify(req.tools)) : 0),
};

const catalog = buildCatalog();
const sonnet = catalog.get("anthropic/claude-sonnet-4-5")!;
const gpt = catalog.get("openai/gpt-4o-mini")!;

const call = (model: ProviderCall["model"], request: ChatRequest): ProviderCall => {
  const controller = new AbortController();
  return { model, request, controller, signal: controller.signal, attempt: 0 };
};

/** The session's 10 requests as the client sends them: the history grows by an answer and a
 * question per turn, and the tools arrive with their keys in a new order every turn. */
function session(): ChatRequest[] {
  const out: ChatRequest[] = [];
  let messages: ChatMessage[] = firstTurn();
  for (let turn = 1; turn <= 10; turn++) {
    if (turn > 1) messages = [...messages, { role: "assistant", content: `Answer ${turn - 1}.` }, { role: "user", content: question(turn) }];
    out.push({ model: "gw-auto", messages, tools: TOOLS.map((t) => shuffledKeys(t, turn * 31)) });
  }
  return out;
}

const sha = (s: string): string => createHash("sha256").update(s).digest("hex");
/** JSON without the marks: Anthropic reads the prefix's content, not where the marks sit. */
const unmarked = (v: unknown): string => JSON.stringify(v, (k, x: unknown) => (k === "cache_control" ? undefined : x));

/** Turn 1's stable part, as each upstream receives it: tools (and system) plus every message but
 * the last user turn; `k` is how many messages that is on that wire. */
const openaiPrefix = (body: ChatRequest, k: number): string => sha(JSON.stringify(body.tools) + JSON.stringify(body.messages.slice(0, k)));
const anthropicPrefix = (body: MessagesBody, k: number): string =>
  sha(unmarked(body.tools) + unmarked(body.system) + unmarked(body.messages.slice(0, k)));

const align = (req: ChatRequest): ChatRequest => cacheAlign.run(req, ctx) ?? req;
const openaiBody = (req: ChatRequest): ChatRequest => JSON.parse(openaiRequest(call(gpt, req), { baseUrl: "http://u/v1", apiKey: "k" }).body as string);
const anthropicBody = (req: ChatRequest): MessagesBody => JSON.parse(anthropicRequest(call(sonnet, req), { baseUrl: "http://u", apiKey: "k" }).body as string);

describe("cache_align: 10 turns through the request builders", () => {
  const turns = session();

  test("OpenAI-compatible wire: turns 2..10 start with turn 1's stable part, byte for byte; without cache_align they do not", () => {
    const k = turns[0]!.messages.length - 1;
    const aligned = turns.map((t) => openaiPrefix(openaiBody(align(t)), k));
    expect(new Set(aligned).size).toBe(1);
    const raw = turns.map((t) => openaiPrefix(openaiBody(t), k));
    expect(new Set(raw).size).toBeGreaterThan(1); // the client's reordering would have broken it
  });

  test("Anthropic wire: the same, marks aside; a mark on the system and one on the history each turn", () => {
    const first = anthropicBody(align(turns[0]!));
    const k = first.messages.length - 1;
    const hashes = new Set<string>();
    for (const t of turns) {
      const body = anthropicBody(align(t));
      hashes.add(anthropicPrefix(body, k));
      const system = body.system!.findIndex((b) => b.cache_control);
      expect(system).toBe(body.system!.length - 1); // tools and system reach Sonnet's 1,024 minimum
      const final = body.messages.length - 1;
      const history = body.messages.flatMap((m, i) => m.content.flatMap((c, j) => (c.cache_control ? [[i, j]] : [])));
      expect(history).toEqual([[final - 1, body.messages[final - 1]!.content.length - 1]]); // the block before the final user turn
      expect(body.tools!.filter((x) => x.cache_control)).toEqual([]); // the tools alone stay under the minimum
      expect(unmarked(body).length).toBeLessThan(JSON.stringify(body).length);
    }
    expect(hashes.size).toBe(1);
    expect(new Set(turns.map((t) => anthropicPrefix(anthropicBody(t), k))).size).toBeGreaterThan(1);
  });

  test("each turn's whole prompt but its last question is the next turn's prefix (the cache written is the one read)", () => {
    for (let i = 0; i + 1 < turns.length; i++) {
      const now = openaiBody(align(turns[i]!));
      const next = openaiBody(align(turns[i + 1]!));
      const k = now.messages.length - 1;
      expect(JSON.stringify(next.messages.slice(0, k))).toBe(JSON.stringify(now.messages.slice(0, k)));
      expect(JSON.stringify(next.tools)).toBe(JSON.stringify(now.tools));
    }
  });
});

describe("Anthropic breakpoints: a caller's own marks", () => {
  test("a body that already carries cache_control gets no mark from gw (same object)", () => {
    const body = anthropicBody(align(session()[3]!));
    const stripped: MessagesBody = JSON.parse(unmarked(body));
    expect(withCacheBreakpoints(stripped)).not.toBe(stripped); // long enough: gw would mark it
    const own: MessagesBody = { ...stripped, messages: stripped.messages.map((m, i) => (i === 0 ? { ...m, content: [{ ...m.content[0]!, cache_control: { type: "ephemeral" } }] } : m)) };
    expect(withCacheBreakpoints(own)).toBe(own);
    const nested: MessagesBody = {
      ...stripped,
      messages: stripped.messages.map((m) => ({
        ...m,
        content: m.content.map((c) => (c.type === "tool_result" ? { ...c, content: [{ type: "text" as const, text: "14 C", cache_control: { type: "ephemeral" as const } }] } : c)),
      })),
    };
    expect(withCacheBreakpoints(nested)).toBe(nested);
  });
});
