// The token engine through a real gw and a scripted OpenAI upstream (docs/optimization.md): what the
// provider receives in each mode, trace.optimization and its arithmetic, the saving, the 400s, the
// project's default mode, streams and the openai SDK with `optimization` as an extra body field.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import modelsFile from "../../../src/routing/models.json" with { type: "json" };
import { admin, expectError, ok } from "../../helpers/admin-api.ts";
import { requestDetail, sseData } from "../../helpers/flow-helpers.ts";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../../helpers/start-gw.ts";
import { post, type TestGw } from "../../helpers/test-gw.ts";

let upstream: ScriptedUpstream;
let gw: TestGw;
let live: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ gw, upstreams: { openai: upstream }, stop } = await startGw({ upstreams: { openai: openaiUpstream() } }));
  live = gw.key({ mode: "live", scopes: ["chat", "requests"] });
});
afterEach(() => upstream.reset());
afterAll(() => stop());

const orders = Array.from({ length: 25 }, (_, i) => ({ order_id: `ORD-${7100 + i}`, total: 19.5 + i, status: i % 4 ? "shipped" : "open" }));
const note = "Summary of the week.   The   warehouse   in   Lyon   shipped   most   orders   on   time.   ".repeat(12);

/** The request every test sends, with the texts the engine should change. */
type Message = { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string };
const messages = (): Message[] => [
  { role: "system", content: "You answer questions about orders." },
  { role: "user", content: `Export from the shop:\n${JSON.stringify({ orders }, null, 2)}\n\n\n\nNotes:\n${note}` },
  { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup", arguments: "{\"id\":\"ORD-7103\"}" } }] },
  { role: "tool", tool_call_id: "call_1", content: JSON.stringify({ order: orders[3], history: orders.slice(0, 15) }, null, 4) },
  { role: "user", content: "What is the total of ORD-7103?" },
];

/** What safe mode sends: written out here, not computed by the engine. */
const optimised = () => {
  const m = messages();
  m[1] = { role: "user", content: `Export from the shop:\n${JSON.stringify({ orders })}\n\nNotes:\n${note.replaceAll(/ {2,}/g, " ").trimEnd()}` };
  m[3] = { role: "tool", tool_call_id: "call_1", content: JSON.stringify({ order: orders[3], history: orders.slice(0, 15) }) };
  return m;
};

const chat = (extra: Record<string, unknown>, key = live) =>
  post(`${gw.url}/chat/completions`, key, { model: "openai/gpt-4o-mini", messages: messages(), ...extra });
const sent = (i = 0) => upstream.calls[i]!.body as { messages: unknown[]; optimization?: unknown };

interface OptimizationTrace {
  mode: string;
  original_tokens: number;
  final_tokens: number;
  saved?: number;
  stages: Array<{ name: string; applied: boolean; before_tokens: number; after_tokens: number; ms: number; reverted_reason?: string }>;
}
async function traceOf(res: Response): Promise<{ optimization: OptimizationTrace; saved: number; input_tokens: number }> {
  const id = ((await res.json()) as { gw: { request_id: string } }).gw.request_id;
  await gw.drain();
  const { body } = await requestDetail(gw.url, live, id);
  const trace = body.trace as unknown as { optimization: OptimizationTrace };
  return { optimization: trace.optimization, saved: (body as unknown as { saved: number }).saved, input_tokens: body.input_tokens };
}

describe("what the provider receives", () => {
  test("safe: the JSON minified and the prose collapsed, exactly; the rest as sent", async () => {
    const res = await chat({ optimization: { mode: "safe" } });
    expect(res.status).toBe(200);
    expect(sent().messages).toEqual(optimised());
    expect(sent().optimization).toBeUndefined();
  });

  test("off, and no optimization at all: the messages as sent", async () => {
    expect((await chat({ optimization: { mode: "off" } })).status).toBe(200);
    expect((await chat({})).status).toBe(200);
    expect(sent(0).messages).toEqual(messages());
    expect(sent(1).messages).toEqual(messages());
  });

  test("do_not_compress keeps a message byte for byte", async () => {
    expect((await chat({ optimization: { mode: "safe", do_not_compress: ["tool"] } })).status).toBe(200);
    const want = optimised();
    want[3] = messages()[3]!;
    expect(sent().messages).toEqual(want);
  });

  test("a stream sends the optimised request too", async () => {
    const res = await chat({ optimization: { mode: "safe" }, stream: true });
    expect(res.status).toBe(200);
    expect((await sseData(res)).at(-1)).toBe("[DONE]");
    expect(sent().messages).toEqual(optimised());
  });
});

describe("trace.optimization", () => {
  test("mode, counts, stages in order, final = original minus the applied stages' savings, and the saving priced", async () => {
    const { optimization: o, saved } = await traceOf(await chat({ optimization: { mode: "safe" } }));
    expect(o.mode).toBe("safe");
    expect(o.stages.map((s) => s.name)).toEqual(["json_minify", "whitespace", "dedupe_documents", "cache_align"]);
    expect(o.stages.slice(0, 2).map((s) => s.applied)).toEqual([true, true]);
    const removed = o.stages.filter((s) => s.applied).reduce((n, s) => n + s.before_tokens - s.after_tokens, 0);
    expect(removed).toBeGreaterThan(0);
    expect(o.final_tokens).toBe(o.original_tokens - removed);
    const price = modelsFile.models.find((m) => m.id === "openai/gpt-4o-mini")!.input_price;
    expect(o.saved).toBeCloseTo((removed * price) / 1e6, 10);
    // An explicit model is its own baseline: the whole saving is the engine's.
    expect(saved).toBeCloseTo(o.saved!, 10);
  });

  test("off: the analysis' bound, no stages, no saving", async () => {
    const { optimization: o, saved } = await traceOf(await chat({}));
    expect(o).toMatchObject({ mode: "off", stages: [] });
    expect(o.final_tokens).toBe(o.original_tokens);
    expect(o.saved).toBeUndefined();
    expect(saved).toBe(0);
  });
});

describe("400 for a bad option, naming it", () => {
  const cases: Array<[unknown, string]> = [
    [{ mode: "max" }, "optimization.mode"],
    [{ preserve: [{ regex: "(a+)+" }] }, "optimization.preserve[0].regex"],
    [{ do_not_compress: [9] }, "optimization.do_not_compress[0]"],
    [{ documents: ["1"] }, "optimization.documents[0]"],
    [{ fields: { keep: ["items.id"] } }, "optimization.fields.keep[0]"],
  ];
  for (const [optimization, param] of cases) {
    test(param, async () => {
      const error = await expectError(await chat({ optimization }), 400, "invalid_request", param);
      expect(String(error.message)).toContain(param);
      expect(upstream.callCount()).toBe(0);
    });
  }
});

describe("the project's optimization_mode", () => {
  test("is the default; the request's mode wins", async () => {
    await ok(await admin(gw, "PATCH", `/projects/${gw.projectId}`, { policy: { optimization_mode: "safe" } }));
    try {
      expect((await chat({})).status).toBe(200);
      expect((await chat({ optimization: { mode: "off" } })).status).toBe(200);
      expect(sent(0).messages).toEqual(optimised());
      expect(sent(1).messages).toEqual(messages());
      await expectError(await admin(gw, "PATCH", `/projects/${gw.projectId}`, { policy: { optimization_mode: "max" } }), 400, "invalid_request");
    } finally {
      await ok(await admin(gw, "PATCH", `/projects/${gw.projectId}`, { policy: { optimization_mode: null } }));
    }
  });
});

test("the openai SDK sends optimization as an extra body field, unchanged", async () => {
  const client = new OpenAI({ apiKey: live, baseURL: gw.url, maxRetries: 0 });
  const params = { model: "openai/gpt-4o-mini", messages: messages() as OpenAI.ChatCompletionMessageParam[], optimization: { mode: "safe" } };
  const completion = await client.chat.completions.create(params);
  expect(completion.choices[0]!.message.content).toBeString();
  expect(sent().messages).toEqual(optimised());
});
