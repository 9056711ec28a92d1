// One cost estimate (issue 22 item 2, docs/routing.md "Eligibility"): trace.expected.cost comes
// from the estimate the max_cost check accepted, so a served request's trace never shows an
// expected cost above its max_cost. The case found: a long input whose strict byte bound fails the
// cap while its exact token count passes it. Through the real server and its request log.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { boundMessageTokens, countMessageTokens } from "../../../src/analysis/tokens.ts";
import type { ChatMessage } from "../../../src/canonical/chat.ts";
import { maxCostOf, outputAskOf, worstCostOf } from "../../../src/routing/cost.ts";
import { get, post, startTestGw, type TestGw } from "../../helpers/test-gw.ts";

let gw: TestGw;
beforeAll(async () => (gw = await startTestGw()));
afterAll(() => gw.stop());

interface Trace { selected_model: string | null; expected: { cost: number } | null; candidates: Array<{ model: string; excluded?: string }> }

async function served(body: Record<string, unknown>): Promise<Trace> {
  const res = await post(`${gw.url}/chat/completions`, gw.testKey, body);
  expect(res.status).toBe(200);
  const { gw: meta } = (await res.json()) as { gw: { request_id: string } };
  await gw.drain();
  const detail = await get(`${gw.url}/requests/${meta.request_id}`, gw.testKey);
  expect(detail.status).toBe(200);
  const { trace, selected_model } = (await detail.json()) as { trace: Omit<Trace, "selected_model">; selected_model: string | null };
  return { ...trace, selected_model };
}

test("max_cost just above the chosen model's upper bound, below the byte-bound estimate: the trace stays within the cap", async () => {
  const messages: ChatMessage[] = [{ role: "user", content: `Summarise this: ${"hello ".repeat(5000)}` }];
  const bound = boundMessageTokens(messages);
  const exact = countMessageTokens(messages);
  expect(bound).toBeGreaterThan(2 * exact);
  const body = { model: "gw-auto", messages, max_tokens: 1 };
  const ask = outputAskOf(body);
  const chat = gw.deps.catalog.models.filter((m) => !m.capabilities.embeddings);
  // Just above the cheapest model's upper bound on the exact count: it (and models as cheap) stay eligible.
  const cap = Math.min(...chat.map((m) => worstCostOf(m, exact, ask))) * 1.05;
  const trace = await served({ ...body, max_cost: cap });
  const chosen = chat.find((m) => m.id === trace.selected_model)!;
  expect(chosen).toBeDefined();
  expect(worstCostOf(chosen, exact, ask)).toBeLessThanOrEqual(cap);
  // What the trace showed before: the byte bound's estimate, above the cap.
  expect(maxCostOf(chosen, bound, 1)).toBeGreaterThan(cap);
  expect(trace.expected!.cost).toBeGreaterThan(0);
  expect(trace.expected!.cost).toBeLessThanOrEqual(cap);
});

test("without max_cost, or when the byte bound passes it, the expected cost is the byte bound's estimate as before", async () => {
  const messages: ChatMessage[] = [{ role: "user", content: "What is the tallest mountain in Africa?" }];
  const body = { model: "gw-auto", messages, max_tokens: 40 };
  const free = await served(body);
  const chosen = gw.deps.catalog.models.find((m) => m.id === free.selected_model)!;
  expect(free.expected!.cost).toBe(maxCostOf(chosen, boundMessageTokens(messages), 40));
  const roomy = await served({ ...body, max_cost: 10 });
  const again = gw.deps.catalog.models.find((m) => m.id === roomy.selected_model)!;
  expect(roomy.expected!.cost).toBe(maxCostOf(again, boundMessageTokens(messages), 40));
});
