// Credits, budget and plan events from a real gw (docs/webhooks.md "Event types"): each fires once
// per natural key, on the request that crosses its threshold, however many requests race past it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { boundMessageTokens } from "../../../src/analysis/tokens.ts";
import { dayKey, monthKey } from "../../../src/billing/periods.ts";
import { addCredits, answerWith, billedProject, chat, errorCode, usd, user, worstChargeNano } from "../../flows/billing/billing-helpers.ts";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { eventsOf, NOON, startEventsGw, type TestGw } from "./events-helpers.ts";

let gw: TestGw;
let upstream: ScriptedUpstream;
let stop: () => Promise<void>;
beforeAll(async () => ({ gw, upstream, stop } = await startEventsGw()));
afterAll(() => stop());

const MAX_TOKENS = 300;
const messages = user("Summarise the quarterly numbers for the board in three short bullet points.");
/** Each answer uses its whole reservation: the charge is the hold. */
const worst = worstChargeNano(messages, MAX_TOKENS);
const answer = (n: number, delayMs = 0) => upstream.script({ body: answerWith(boundMessageTokens(messages), MAX_TOKENS), delayMs }, n);
const ask = (key: string) => chat(gw, key, { messages, max_tokens: MAX_TOKENS });

describe("budget.threshold_reached", () => {
  test("200 concurrent requests crossing 50% and 80% of a daily budget send exactly one event for each", async () => {
    // All 200 fit (their holds together are 90% of the budget), and their charges spend 90% of it.
    const p = await billedProject(gw, { policy: { budgets: { daily: usd(Math.ceil((200 * worst) / 0.9)) }, budget_action: "block" } });
    answer(200, 50);
    const results = await Promise.all(Array.from({ length: 200 }, () => ask(p.key)));
    expect(results.map((r) => r.status)).toEqual(Array(200).fill(200));
    upstream.reset();
    const events = eventsOf(gw, p.id, "budget.threshold_reached");
    const day = dayKey(NOON);
    expect(events.map((e) => e.key)).toEqual([`daily:${day}:50`, `daily:${day}:80`]);
    expect(events[1]!.data).toMatchObject({ period: "daily", period_key: day, percent: 80, budget: usd(Math.ceil((200 * worst) / 0.9)) });
    expect(events[1]!.data.spent).toBeGreaterThanOrEqual(0.8 * (events[1]!.data.budget as number));
    expect(events[1]!.data.request_id).toMatch(/^req_/);
    expect(eventsOf(gw, p.id, "budget.exceeded")).toEqual([]);
  });

  test("a refused request sends budget.exceeded once per period, and one charge passing 80% and 100% sends both", async () => {
    const p = await billedProject(gw, { policy: { budgets: { daily: usd(2 * worst) }, budget_action: "block" } });
    answer(2);
    expect((await ask(p.key)).status).toBe(200);
    expect((await ask(p.key)).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const refused = await ask(p.key);
      expect(refused.status).toBe(402);
      expect(await errorCode(refused)).toBe("budget_exceeded");
    }
    upstream.reset();
    expect(eventsOf(gw, p.id, "budget.threshold_reached").map((e) => e.data.percent)).toEqual([50, 80, 100]);
    const exceeded = eventsOf(gw, p.id, "budget.exceeded");
    expect(exceeded).toHaveLength(1);
    expect(exceeded[0]!.key).toBe(`daily:${dayKey(NOON)}`);
    expect(exceeded[0]!.data).toMatchObject({ period: "daily", action: "block", budget: usd(2 * worst), spent: usd(2 * worst) });
  });
});

describe("budget.downgraded", () => {
  test("once per period, when budget_action downgrade left a model out", async () => {
    const body = { model: "gw-quality", messages, max_tokens: 1_000 };
    const free = await billedProject(gw);
    const first = (await (await chat(gw, free.key, body)).json()) as { model: string };
    const dearest = worstChargeNano(messages, 1_000, first.model);
    const p = await billedProject(gw, { policy: { budgets: { daily: usd(dearest / 2) }, budget_action: "downgrade" } });
    const a = await chat(gw, p.key, body);
    expect(a.status).toBe(200);
    expect(((await a.json()) as { model: string }).model).not.toBe(first.model);
    await chat(gw, p.key, body);
    const events = eventsOf(gw, p.id, "budget.downgraded");
    expect(events).toHaveLength(1);
    expect(events[0]!.key).toBe(`daily:${dayKey(NOON)}`);
    expect(events[0]!.data).toMatchObject({ period: "daily", period_key: dayKey(NOON), request_id: a.headers.get("x-gw-request-id") });
    expect(events[0]!.data.remaining).toBeGreaterThan(0);
  });
});

describe("budget.exceeded under downgrade", () => {
  test("no model left within the budget: the 402 sends budget.exceeded once, for a profile or an explicit model", async () => {
    const p = await billedProject(gw, { policy: { budgets: { monthly: 0.0000001 }, budget_action: "downgrade" } });
    for (const model of ["gw-quality", "openai/gpt-4o", "gw-quality"]) {
      const res = await chat(gw, p.key, { model, messages, max_tokens: 1_000 });
      expect(res.status).toBe(402);
      expect(await errorCode(res)).toBe("budget_exceeded");
    }
    const events = eventsOf(gw, p.id, "budget.exceeded");
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ key: `monthly:${monthKey(NOON)}`, data: { period: "monthly", action: "downgrade", budget: 0.0000001, spent: 0, reserved: 0 } });
  });
});

describe("credits", () => {
  test("added on each top-up (key: the ledger entry), low under 20% of it, depleted at zero and on refusal, each once", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, usd(10 * worst));
    const added = eventsOf(gw, p.id, "credits.added");
    expect(added).toHaveLength(1);
    const seq = gw.deps.db.query<{ seq: number }, [string]>("SELECT seq FROM ledger WHERE project_id = ? AND kind = 'credit'").get(p.id)!.seq;
    expect(added[0]).toMatchObject({ key: String(seq), data: { entry_id: seq, amount: usd(10 * worst), balance: usd(10 * worst) } });

    answer(10);
    for (let i = 1; i <= 8; i++) expect((await ask(p.key)).status).toBe(200);
    // 2 of 10 left: 20%, not under it yet.
    expect(eventsOf(gw, p.id, "credits.low")).toEqual([]);
    expect((await ask(p.key)).status).toBe(200);
    const low = eventsOf(gw, p.id, "credits.low");
    expect(low).toHaveLength(1);
    expect(low[0]).toMatchObject({ key: `topup:${seq}`, data: { balance: usd(worst), threshold: usd(2 * worst), last_top_up: { entry_id: seq, amount: usd(10 * worst) } } });
    expect(eventsOf(gw, p.id, "credits.depleted")).toEqual([]);
    expect((await ask(p.key)).status).toBe(200);
    const refused = await ask(p.key);
    expect(refused.status).toBe(402);
    expect(await errorCode(refused)).toBe("insufficient_credits");
    upstream.reset();
    const depleted = eventsOf(gw, p.id, "credits.depleted");
    expect(depleted).toHaveLength(1);
    expect(depleted[0]).toMatchObject({ key: `topup:${seq}`, data: { reason: "balance_zero", balance: 0, credit_limit: null } });

    // A new top-up re-arms both.
    await addCredits(gw, p.id, usd(worst) / 2);
    expect(eventsOf(gw, p.id, "credits.added")).toHaveLength(2);
    const again = await ask(p.key);
    expect(again.status).toBe(402);
    const after = eventsOf(gw, p.id, "credits.depleted");
    expect(after).toHaveLength(2);
    expect(after[1]!.data.reason).toBe("request_refused");
  });
});

describe("plan limits (Free: 10,000 requests a month)", () => {
  /** A Free project whose month already holds `used` answered requests (charge rows). */
  async function freeProjectWith(used: number) {
    const p = await billedProject(gw, { plan: "free" });
    const now = gw.deps.clock.now();
    gw.deps.repos.ledger.appendMany(Array.from({ length: used }, () => ({ projectId: p.id, kind: "charge" as const, amount: 0, createdAt: now })));
    return p;
  }

  test("plan.limit_warning when the 8,000th request is answered, once", async () => {
    const p = await freeProjectWith(7_998);
    answer(3);
    for (let i = 0; i < 3; i++) expect((await ask(p.key)).status).toBe(200);
    upstream.reset();
    const events = eventsOf(gw, p.id);
    expect(events.map((e) => e.type)).toEqual(["plan.limit_warning"]);
    expect(events[0]).toMatchObject({ key: monthKey(NOON), data: { month: monthKey(NOON), percent: 80, limit: 10_000, used: 8_000 } });
  });

  test("plan.limit_reached when the 10,000th is answered; the refusals after it send nothing more", async () => {
    const p = await freeProjectWith(9_999);
    answer(1);
    expect((await ask(p.key)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect(await errorCode(await ask(p.key))).toBe("plan_limit");
    upstream.reset();
    const events = eventsOf(gw, p.id);
    expect(events.map((e) => e.type)).toEqual(["plan.limit_reached"]);
    expect(events[0]!.data).toEqual({ month: monthKey(NOON), percent: 100, limit: 10_000, used: 10_000 });
  });
});
