// Project budgets (docs/billing.md "Budgets"; docs/api.md "Project policy"): daily and monthly, UTC, in
// charges; budget_action block refuses (402 budget_exceeded), downgrade routes only to models whose
// worst-case charge fits what is left and says so in the trace, warn serves and records an event.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { toNano } from "../../../src/billing/money.ts";
import { requestDetail } from "../../helpers/flow-helpers.ts";
import { waitFor } from "../../helpers/wait-for.ts";
import { boundMessageTokens } from "../../../src/analysis/tokens.ts";
import { answerWith, billedProject, chat, errorCode, startBillingGw, usd, user, worstChargeNano, type ScriptedUpstream, type TestGw } from "./billing-helpers.ts";

let gw: TestGw;
let upstream: ScriptedUpstream;
let stop: () => Promise<void>;
beforeAll(async () => ({ gw, upstream, stop } = await startBillingGw()));
afterAll(() => stop());

const messages = user("Analyse the trade-offs of event sourcing for a billing system and recommend an approach.");
const body = { model: "gw-quality", messages, max_tokens: 1_000 };
interface Answer { model: string; gw: { request_id: string } }

async function served(key: string): Promise<Answer> {
  const res = await chat(gw, key, body);
  expect(res.status).toBe(200);
  return (await res.json()) as Answer;
}

describe("budget_action downgrade", () => {
  test("leaves out the models that could pass the budget, picks a cheaper one, and the trace says why", async () => {
    const free = await billedProject(gw);
    const first = await served(free.key);
    const dearest = worstChargeNano(messages, 1_000, first.model);
    // Half the unconstrained choice's worst case: it no longer fits.
    const p = await billedProject(gw, { policy: { budgets: { daily: usd(dearest / 2) }, budget_action: "downgrade" } });
    const answer = await served(p.key);
    expect(answer.model).not.toBe(first.model);
    expect(worstChargeNano(messages, 1_000, answer.model)).toBeLessThanOrEqual(dearest / 2);
    const { body: detail } = await requestDetail(gw.url, p.key, answer.gw.request_id);
    const trace = detail.trace as unknown as { candidates: Array<{ model: string; excluded?: string }>; reasons: string[]; billing: { notes: string[] } };
    expect(trace.candidates.find((c) => c.model === first.model)?.excluded).toMatch(/^could cost more than the project's budget allows \(daily, remaining \$/);
    expect(trace.reasons.some((r) => /excluded: could cost more than the project's budget allows/.test(r))).toBe(true);
    expect(trace.reasons).toContainEqual(expect.stringContaining("budget_action downgrade: only models within the daily budget's remaining"));
    expect(trace.billing.notes[0]).toContain("budget_action downgrade");
  });

  test("nothing fits: 402 budget_exceeded; an explicit model that does not fit: 402 naming it", async () => {
    const p = await billedProject(gw, { policy: { budgets: { monthly: 0.0000001 }, budget_action: "downgrade" } });
    const res = await chat(gw, p.key, body);
    expect(res.status).toBe(402);
    expect(await errorCode(res)).toBe("budget_exceeded");
    const explicit = await chat(gw, p.key, { ...body, model: "openai/gpt-4o" });
    expect(explicit.status).toBe(402);
    expect(((await explicit.json()) as { error: { param: string } }).error.param).toBe("model");
  });
});

describe("budget_action warn", () => {
  test("serves past the budget, notes it in the trace and records one budget event per period", async () => {
    const p = await billedProject(gw, { policy: { budgets: { daily: 0.0000001 }, budget_action: "warn" } });
    const a = await served(p.key);
    await served(p.key);
    const { body: detail } = await requestDetail(gw.url, p.key, a.gw.request_id);
    const notes = (detail.trace as unknown as { billing: { notes: string[] } }).billing.notes;
    expect(notes[0]).toMatch(/^daily budget \$0\.0000001 exceeded \(\$0 spent, \$0 reserved, up to \$0\.\d+ for this request\): served under budget_action warn; a budget event marks the period$/);
    const events = gw.deps.db.query<{ period: string; action: string; budget: number; request_id: string }, [string]>(
      "SELECT period, action, budget, request_id FROM budget_events WHERE project_id = ?",
    ).all(p.id);
    expect(events).toEqual([{ period: "daily", action: "warn", budget: toNano(0.0000001), request_id: a.gw.request_id }]);
    // Spending went on: both answers are in the day's total.
    expect(gw.deps.billing.account(p.id).day.spent).toBeGreaterThan(toNano(0.0000001));
  });
});

describe("budget_action block", () => {
  test("the default action: refused when spent + held + this request's hold would pass the budget", async () => {
    const explicit = { ...body, model: "openai/gpt-4o-mini" };
    const one = worstChargeNano(messages, 1_000, "openai/gpt-4o-mini");
    const p = await billedProject(gw, { policy: { budgets: { daily: usd(Math.round(one * 1.5)) } } });
    // A slow answer that uses its whole hold; while it is in flight its hold counts.
    upstream.script({ body: answerWith(boundMessageTokens(messages), 1_000), delayMs: 200 });
    const slow = chat(gw, p.key, explicit);
    await waitFor(() => gw.deps.billing.account(p.id).reserved === one);
    const held = await chat(gw, p.key, explicit);
    expect(held.status).toBe(402);
    expect(await errorCode(held)).toBe("budget_exceeded");
    expect((await slow).status).toBe(200);
    // Now spent: the same sum, so the next one is refused as well.
    expect(gw.deps.billing.account(p.id).day.spent).toBe(one);
    const spent = await chat(gw, p.key, explicit);
    expect(spent.status).toBe(402);
    expect(await errorCode(spent)).toBe("budget_exceeded");
  });
});
