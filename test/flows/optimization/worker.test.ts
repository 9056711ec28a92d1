// A large request's optimisation runs in the engine's worker (docs/optimization.md "Where it runs"):
// through a real gw, small requests complete while a 98k-token safe-mode request is being optimised,
// which then reaches the scripted upstream minified, with the trace's arithmetic intact.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { engineWorker } from "../../../src/optimization/engine-worker.ts";
import { requestDetail } from "../../helpers/flow-helpers.ts";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../../helpers/start-gw.ts";
import { post, type TestGw } from "../../helpers/test-gw.ts";
import { waitFor } from "../../helpers/wait-for.ts";

let upstream: ScriptedUpstream;
let gw: TestGw;
let live: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ gw, upstreams: { openai: upstream }, stop } = await startGw({ upstreams: { openai: openaiUpstream() } }));
  live = gw.key({ mode: "live", scopes: ["chat", "requests"] });
});
afterAll(() => stop());

/** Page `p` of an order search: 40 pretty-printed rows, every id and amount its own. */
const page = (p: number) => ({
  page: p,
  orders: Array.from({ length: 40 }, (_, i) => ({ order_id: `ORD-${100_000 + p * 40 + i}`, total: 10 + ((p * 40 + i) % 97) + 0.25, status: i % 3 ? "shipped" : "open", city: "Lyon" })),
});
const PAGES = 61;

/** An agent transcript of ~98k o200k tokens: one search call and its result per page. */
function bigMessages(pretty: boolean) {
  const messages: Array<Record<string, unknown>> = [{ role: "system", content: "You answer questions about orders." }, { role: "user", content: "Find the open orders in Lyon." }];
  for (let p = 0; p < PAGES; p++) {
    messages.push({ role: "assistant", content: null, tool_calls: [{ id: `call_${p}`, type: "function", function: { name: "search_orders", arguments: `{"page":${p}}` } }] });
    messages.push({ role: "tool", tool_call_id: `call_${p}`, content: pretty ? JSON.stringify(page(p), null, 2) : JSON.stringify(page(p)) });
  }
  messages.push({ role: "user", content: "How many are open?" });
  return messages;
}

const chat = (messages: unknown[]) => post(`${gw.url}/chat/completions`, live, { model: "openai/gpt-4o-mini", messages, optimization: { mode: "safe" } });
const small = () => chat([{ role: "user", content: "What is the status of ORD-100007?" }]);

interface Trace {
  original_tokens: number;
  final_tokens: number;
  stages: Array<{ name: string; applied: boolean; before_tokens: number; after_tokens: number; reverted_reason?: string }>;
}

describe("the engine's worker behind a real gw", () => {
  test("small requests complete while a 98k-token request is optimised; it then reaches the provider minified", async () => {
    // Once, so the worker has loaded its tokenizer tables before the request that is watched.
    expect((await chat(bigMessages(true))).status).toBe(200);
    upstream.reset();

    const big = chat(bigMessages(true));
    await waitFor(() => engineWorker().pending() > 0, { timeoutMs: 30_000, what: "the large request to reach the engine's worker" });
    let whileBusy = 0;
    for (let i = 0; i < 200 && engineWorker().pending() > 0; i++) {
      const res = await small();
      expect(res.status).toBe(200);
      await res.json();
      if (engineWorker().pending() > 0) whileBusy++;
    }
    // Answered while the large one was still in the worker: the request thread was free.
    expect(whileBusy).toBeGreaterThan(0);
    const res = await big;
    expect(res.status).toBe(200);
    // Every small request answered while the large one was in the worker reached the provider
    // before it (one sent as the worker finished may race it there, and may come after).
    const order = upstream.calls.map((c) => ((c.body as { messages: unknown[] }).messages.length > 1 ? "big" : "small"));
    expect(order.filter((o) => o === "big")).toEqual(["big"]);
    expect(order.indexOf("big")).toBeGreaterThanOrEqual(whileBusy);

    const sent = upstream.calls[order.indexOf("big")]!.body as { messages: unknown[] };
    expect(sent.messages).toEqual(bigMessages(false));

    const id = ((await res.json()) as { gw: { request_id: string } }).gw.request_id;
    await gw.drain();
    const { body } = await requestDetail(gw.url, live, id);
    const o = (body.trace as unknown as { optimization: Trace }).optimization;
    expect(o.original_tokens).toBeGreaterThan(90_000);
    expect(o.stages[0]).toMatchObject({ name: "json_minify", applied: true });
    const removed = o.stages.filter((s) => s.applied).reduce((n, s) => n + s.before_tokens - s.after_tokens, 0);
    expect(o.final_tokens).toBe(o.original_tokens - removed);
    expect(o.final_tokens).toBeLessThan(o.original_tokens * 0.8);
  });
});
