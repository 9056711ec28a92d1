// Metering and charges (docs/billing.md "Charges"; docs/api.md "The gw object"): gw.cost stays the
// model cost; the charge is cost + 10% on the operator's key, nothing with the project's own key (its
// provider bills it); cache hits and test keys are never charged; a hold settles to the actual charge and a
// failed request releases it whole; embeddings are reserved and charged like chat.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { boundMessageTokens } from "../../../src/analysis/tokens.ts";
import { chargeNano, toNano } from "../../../src/billing/money.ts";
import { costOf } from "../../../src/routing/cost.ts";
import { post } from "../../helpers/test-gw.ts";
import { requestDetail } from "../../helpers/flow-helpers.ts";
import {
  addCredits, admin, answerWith, billedProject, catalogModel, chat, ledgerOf, MODEL, startBillingGw, sumOf, usd, user,
  worstChargeNano, type ScriptedUpstream, type TestGw,
} from "./billing-helpers.ts";

let gw: TestGw;
let upstream: ScriptedUpstream;
let stop: () => Promise<void>;
beforeAll(async () => ({ gw, upstream, stop } = await startBillingGw()));
afterAll(() => stop());

const mini = catalogModel(MODEL);
const costNano = (prompt: number, completion: number) => toNano(costOf(mini, { promptTokens: prompt, completionTokens: completion, cachedTokens: 0 }));

interface Answer { gw: { request_id: string; cost: number; provider: string; cache: string | null } }

describe('the charge (docs/billing.md "Charges")', () => {
  test("operator key: charge = cost x 1.10, gw.cost stays the cost; the hold settles to it and the rest is released", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, 1);
    const messages = user("How many moons does Mars have?");
    upstream.script({ body: answerWith(1_000, 500) });
    const res = await chat(gw, p.key, { messages, max_tokens: 800 });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Answer;
    // (1000 x 0.15 + 500 x 0.60) / 1e6 = 0.00045 USD; x 1.1 = 0.000495 USD.
    expect(answer.gw.cost).toBeCloseTo(0.00045, 12);
    expect(costNano(1_000, 500)).toBe(450_000);
    const rows = await ledgerOf(gw, p.id);
    const [hold, charge] = rows.filter((r) => r.kind !== "credit");
    expect(hold).toMatchObject({ kind: "hold", amount: worstChargeNano(messages, 800), request_id: answer.gw.request_id });
    expect(charge).toMatchObject({ kind: "charge", amount: 495_000, cost: 450_000, model: MODEL, input_tokens: 1_000, output_tokens: 500, byok: 0 });
    const account = gw.deps.billing.account(p.id);
    expect(account.reserved).toBe(0);
    expect(account.balance).toBe(1e9 - 495_000);
    // trace.billing: what was held and what was charged.
    const { body } = await requestDetail(gw.url, p.key, answer.gw.request_id);
    expect((body.trace as unknown as { billing: unknown }).billing).toEqual({ mode: "prepaid", reserved: worstChargeNano(messages, 800) / 1e9, charge: 0.000495 });
  });

  test("the project's own provider key (BYOK): its provider bills it, gw charges nothing", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, 1);
    expect((await admin(gw, "PUT", `/projects/${p.id}/provider-keys/openai`, { api_key: "sk-project-own-1234", base_url: upstream.url })).status).toBe(200);
    const messages = user("Name a prime number above 100.");
    upstream.script({ body: answerWith(1_000, 500) });
    const res = await chat(gw, p.key, { messages, max_tokens: 800 });
    expect(res.status).toBe(200);
    expect(upstream.calls.at(-1)?.headers.authorization).toBe("Bearer sk-project-own-1234");
    const rows = await ledgerOf(gw, p.id);
    // Nothing was held either: the project's key was known to serve the model.
    expect(rows.find((r) => r.kind === "hold")?.amount ?? 0).toBe(worstChargeNano(messages, 800, MODEL, true));
    expect(worstChargeNano(messages, 800, MODEL, true)).toBe(0);
    expect(rows.find((r) => r.kind === "charge")).toMatchObject({ amount: 0, cost: 450_000, byok: 1 });
  });

  test("a cache hit is never charged: a `cache` row with its saving, balance untouched", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, 1);
    const body = { messages: user("What is the boiling point of water at sea level in Celsius?"), max_tokens: 100 };
    upstream.script({ body: answerWith(20, 10) });
    const first = (await (await chat(gw, p.key, body, {})).json()) as Answer;
    const second = (await (await chat(gw, p.key, body, {})).json()) as Answer;
    expect(first.gw.cache).toBeNull();
    expect(second.gw).toMatchObject({ cache: "exact", cost: 0 });
    const rows = await ledgerOf(gw, p.id);
    expect(rows.filter((r) => r.kind === "charge")).toHaveLength(1);
    expect(rows.find((r) => r.kind === "cache")).toMatchObject({ amount: 0, request_id: second.gw.request_id, saved: costNano(20, 10) });
    expect(gw.deps.billing.account(p.id).balance).toBe(1e9 - chargeNano(costNano(20, 10) / 1e9, false));
  });

  test("test keys are never charged, even on a prepaid project with nothing in it", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    const key = gw.key({ mode: "test", projectId: p.id });
    const res = await post(`${gw.url}/chat/completions`, key, { model: MODEL, messages: user("Simulated.") });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Answer).gw.cost).toBeGreaterThan(0);
    expect(await ledgerOf(gw, p.id)).toEqual([]);
  });
});

describe("docs/billing.md: holds end in a charge or a release", () => {
  test("an upstream failure releases the whole hold; the balance is unchanged", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, 1);
    upstream.script({ status: 500 }, 2);
    const messages = user("This one fails upstream.");
    const res = await chat(gw, p.key, { messages, max_tokens: 300 });
    expect(res.status).toBe(502);
    const rows = (await ledgerOf(gw, p.id)).filter((r) => r.kind !== "credit");
    expect(rows.map((r) => r.kind)).toEqual(["hold", "release"]);
    expect(rows[0]!.amount).toBe(rows[1]!.amount);
    expect(rows[1]!.request_id).toBe(res.headers.get("x-gw-request-id"));
    const account = gw.deps.billing.account(p.id);
    expect(account).toMatchObject({ reserved: 0, balance: 1e9 });
    expect(gw.deps.db.query("SELECT * FROM ledger_open_holds WHERE project_id = ?").all(p.id)).toHaveLength(0);
  });

  // Issue 15 item 3: without max_tokens the hold is the model's maximum output, not the expected
  // one, so a long answer stays within it (it used to be charged 18x its hold).
  test("max_tokens absent: the hold covers a long answer, which is charged in full", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, 1);
    const messages = user("Tell me about tides.");
    upstream.script({ body: answerWith(boundMessageTokens(messages), 20_000) });
    expect((await chat(gw, p.key, { messages })).status).toBe(200);
    const rows = await ledgerOf(gw, p.id);
    const hold = rows.find((r) => r.kind === "hold")!.amount;
    const charge = rows.find((r) => r.kind === "charge")!.amount;
    expect(charge).toBeLessThanOrEqual(hold);
    expect(charge).toBeGreaterThan(hold / 1000);
    expect(gw.deps.billing.account(p.id).balance).toBe(1e9 - charge);
  });
});

describe('embeddings are reserved and charged (docs/api.md "Embeddings")', () => {
  test("prepaid: hold on the input's byte bound, charge = prompt tokens x price x 1.10", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    const input = "Ledger entries are append only.";
    const refused = await post(`${gw.url}/embeddings`, p.key, { model: "openai/text-embedding-3-small", input });
    expect(refused.status).toBe(402);
    await addCredits(gw, p.id, 1);
    const res = await post(`${gw.url}/embeddings`, p.key, { model: "openai/text-embedding-3-small", input });
    expect(res.status).toBe(200);
    const { usage, gw: meta } = (await res.json()) as { usage: { prompt_tokens: number }; gw: { cost: number } };
    const rows = await ledgerOf(gw, p.id);
    const embed = catalogModel("openai/text-embedding-3-small");
    expect(rows.find((r) => r.kind === "hold")?.amount).toBe(chargeNano(costOf(embed, { promptTokens: Buffer.byteLength(input), completionTokens: 0, cachedTokens: 0 }), false));
    expect(rows.find((r) => r.kind === "charge")).toMatchObject({ model: "openai/text-embedding-3-small", input_tokens: usage.prompt_tokens, amount: chargeNano(meta.cost, false) });
    expect(sumOf(rows, "charge")).toBeGreaterThan(0);
    expect(usd(gw.deps.billing.account(p.id).balance)).toBeCloseTo(1 - meta.cost * 1.1, 12);
  });
});
