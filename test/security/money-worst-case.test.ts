// Issue 15 item 3 (docs/security.md "Money"): whatever n, max_tokens, max_cost and whatever usage
// an upstream reports, no request is charged above its max_cost and no prepaid balance goes
// below zero. A seeded property run through the real server, plus the reproduced findings.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chargeNano, toNano } from "../../src/billing/money.ts";
import { outputAskOf, worstCostOf, worstOutputTokens } from "../../src/routing/cost.ts";
import { boundMessageTokens } from "../../src/analysis/tokens.ts";
import { addCredits, answerWith, billedProject, catalogModel, chat, ledgerOf, MODEL, startBillingGw, user, type ScriptedUpstream, type TestGw } from "../flows/billing/billing-helpers.ts";
import { requestDetail } from "../helpers/flow-helpers.ts";
import { prng as rng } from "../../bench/lib/prng.ts";

let gw: TestGw;
let upstream: ScriptedUpstream;
let stop: () => Promise<void>;
beforeAll(async () => ({ gw, upstream, stop } = await startBillingGw()));
afterAll(() => stop());

/** Log-uniform between 1 and 1e15: small and absurd usages alike. */
const logUniform = (r: () => number, maxExp = 15): number => Math.floor(10 ** (r() * maxExp));
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

const sseBody = (prompt: number, completion: number): string =>
  [
    { id: "c1", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta: { role: "assistant", content: "Some answer." }, finish_reason: null }] },
    { id: "c1", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    { id: "c1", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } },
  ].map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";

describe("issue 15 item 3: worst-case money, property run", () => {
  test("300 seeded requests: no charge above max_cost, no prepaid balance below zero", async () => {
    const r = rng(15_003);
    const model = catalogModel(MODEL);
    let answered = 0;
    let clamped = 0;
    let refused = 0;
    for (let project = 0; project < 6; project++) {
      const p = await billedProject(gw, { billing: { mode: "prepaid" } });
      await addCredits(gw, p.id, pick(r, [0.001, 0.05, 1, 20]));
      for (let i = 0; i < 50; i++) {
        const body: Record<string, unknown> = { messages: user(`Question ${project}.${i} about tides?`) };
        if (r() < 0.6) body.n = pick(r, [1, 2, 3, 16, 64, 128]);
        if (r() < 0.7) body[r() < 0.5 ? "max_tokens" : "max_completion_tokens"] = logUniform(r, 6);
        const cap = r() < 0.7 ? 10 ** (-6 + r() * 6) : undefined;
        if (cap !== undefined) body.max_cost = cap;
        const stream = r() < 0.3;
        const prompt = logUniform(r);
        const completion = logUniform(r);
        if (stream) {
          body.stream = true;
          body.stream_options = { include_usage: true };
          upstream.script({ body: sseBody(prompt, completion), headers: { "content-type": "text/event-stream" } });
        } else {
          upstream.script({ body: answerWith(prompt, completion) });
        }
        const before = gw.deps.billing.balance(p.id);
        const res = await chat(gw, p.key, body);
        const text = await res.text();
        const where = `project ${project} request ${i}: ${JSON.stringify(body)} usage ${prompt}/${completion} -> ${res.status} ${text.slice(0, 200)}`;
        expect([200, 402, 503], where).toContain(res.status);
        if (res.status !== 200) {
          refused++;
          upstream.reset();
          continue;
        }
        answered++;
        const rows = (await ledgerOf(gw, p.id)).filter((row) => row.kind === "charge");
        const charge = rows.at(-1)!;
        if (cap !== undefined) {
          expect(charge.cost, where).toBeLessThanOrEqual(toNano(cap));
          expect(charge.amount, where).toBeLessThanOrEqual(chargeNano(cap, false));
        }
        // The charge never passes the request's own worst case either.
        const worst = chargeNano(worstCostOf(model, model.context_window, outputAskOf(body)), false);
        expect(charge.amount, where).toBeLessThanOrEqual(worst);
        expect(charge.output_tokens, where).toBeLessThanOrEqual(worstOutputTokens(model, outputAskOf(body)));
        if (charge.output_tokens < Math.min(completion, Number.MAX_SAFE_INTEGER) || charge.input_tokens < prompt) clamped++;
        expect(gw.deps.billing.balance(p.id), where).toBeGreaterThanOrEqual(0);
        expect(gw.deps.billing.balance(p.id), where).toBeLessThanOrEqual(before);
      }
      expect(gw.deps.billing.balance(p.id)).toBeGreaterThanOrEqual(0);
    }
    // The run exercised every branch: answers, refusals, and absurd usages that had to be clamped.
    expect(answered).toBeGreaterThan(30);
    expect(refused).toBeGreaterThan(30);
    expect(clamped).toBeGreaterThan(10);
  }, 120_000);
});

describe("issue 15 item 3: the reproduced findings", () => {
  test("n: 64 with max_cost $0.003 is refused (503 no_model_available), nothing charged", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, 1);
    const calls = upstream.callCount();
    const res = await chat(gw, p.key, { messages: user("Say hi."), n: 64, max_tokens: 500, max_cost: 0.003 });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("no_model_available");
    expect(res.headers.get("x-gw-api-version")).toBeTruthy();
    expect(upstream.callCount()).toBe(calls);
    expect((await ledgerOf(gw, p.id)).filter((r) => r.kind === "charge")).toHaveLength(0);
    // One choice of the same size fits the same cap: n is what refused it.
    upstream.script({ body: answerWith(5, 5) });
    expect((await chat(gw, p.key, { messages: user("Say hi."), max_tokens: 500, max_cost: 0.003 })).status).toBe(200);
  });

  test("a workflow budget is held to the same worst case: n: 64 past it is refused (402 budget_exceeded, as for an exhausted workflow), n: 1 fits", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, 1);
    const body = { messages: user("Step one."), max_tokens: 500, gw: { workflow_id: "wf-money", workflow_budget: 0.003 } };
    const refused = await chat(gw, p.key, { ...body, n: 64 });
    expect(refused.status).toBe(402);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("budget_exceeded");
    upstream.script({ body: answerWith(5, 5) });
    expect((await chat(gw, p.key, body)).status).toBe(200);
  });

  test("n multiplies the hold: n: 8 holds 8x the single-choice worst case", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, 1);
    const messages = user("Count to three.");
    upstream.script({ body: answerWith(5, 5) });
    expect((await chat(gw, p.key, { messages, n: 8, max_tokens: 100 })).status).toBe(200);
    const model = catalogModel(MODEL);
    const hold = (await ledgerOf(gw, p.id)).find((r) => r.kind === "hold")!.amount;
    expect(hold).toBe(chargeNano(worstCostOf(model, boundMessageTokens(messages), { choices: 8, perChoice: 100 }), false));
    expect(hold).toBeGreaterThan(chargeNano(worstCostOf(model, boundMessageTokens(messages), { choices: 1, perChoice: 100 }), false) * 7);
  });

  test("a balance that cannot cover n x the worst case is refused 402 insufficient_credits", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, 0.01);
    const one = await chat(gw, p.key, { messages: user("Hi."), max_tokens: 1000 });
    expect(one.status).toBe(200);
    const many = await chat(gw, p.key, { messages: user("Hi."), max_tokens: 1000, n: 128 });
    expect(many.status).toBe(402);
    expect(((await many.json()) as { error: { code: string } }).error.code).toBe("insufficient_credits");
  });

  test("an upstream reporting 1e15 tokens is billed at the bound and flagged in the trace", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, 5);
    upstream.script({ body: answerWith(1e15, 1e15) });
    const res = await chat(gw, p.key, { messages: user("Tell me about tides."), max_tokens: 200 });
    expect(res.status).toBe(200);
    const id = res.headers.get("x-request-id") ?? ((await res.json()) as { gw: { request_id: string } }).gw.request_id;
    const charge = (await ledgerOf(gw, p.id)).find((r) => r.kind === "charge")!;
    expect(charge.output_tokens).toBe(200);
    expect(charge.input_tokens).toBe(catalogModel(MODEL).context_window);
    expect(gw.deps.billing.balance(p.id)).toBeGreaterThanOrEqual(0);
    const detail = await requestDetail(gw.url, p.key, id);
    const billing = (detail.body.trace as { billing?: { anomaly?: string[] } }).billing;
    expect(billing?.anomaly?.join(" ")).toContain("upstream reported");
  });

  test("without max_tokens the hold is the model's maximum output, not the expected one", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, 5);
    const messages = user("Tell me about tides.");
    upstream.script({ body: answerWith(10, 10) });
    expect((await chat(gw, p.key, { messages })).status).toBe(200);
    const model = catalogModel(MODEL);
    const hold = (await ledgerOf(gw, p.id)).find((r) => r.kind === "hold")!.amount;
    expect(hold).toBe(chargeNano(worstCostOf(model, boundMessageTokens(messages), { choices: 1, perChoice: undefined }), false));
  });
});
