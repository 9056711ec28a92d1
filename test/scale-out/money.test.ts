// Issue 24's money lines across THREE gw processes on one PostgreSQL (docs/scale-out.md): 500
// concurrent requests round-robin against a prepaid balance, then a daily `block` budget, that
// cover exactly 100 worst-case charges serve exactly 100; PostgreSQL's rows are read directly.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { boundMessageTokens } from "../../src/analysis/tokens.ts";
import { toUsd } from "../../src/billing/money.ts";
import { answerWith, user, worstChargeNano } from "../flows/billing/billing-helpers.ts";
import { startMultiGw, type MultiGw } from "../helpers/multi-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";

const MODEL = "openai/gpt-4o-mini";
const MAX_TOKENS = 300;
const N = 500;
const COVERED = 100;
const messages = user("Summarise the quarterly numbers for the board in three short bullet points.");
/** Every answer's usage is its request's worst case: no settle frees room for a 101st. */
const worst = worstChargeNano(messages, MAX_TOKENS);

let upstream: ScriptedUpstream;
let m: MultiGw;
let sql: SQL;
beforeAll(async () => {
  upstream = await startScriptedUpstream();
  m = await startMultiGw(3, { ...upstreamEnv("openai", upstream.url, "sk-money"), GW_SEMANTIC_EMBEDDER: "off" });
  sql = new SQL(m.pg.url);
});
afterAll(async () => {
  await sql?.close();
  await m?.stop();
  await upstream?.stop();
});

/** A project and a live chat key, made through instance 0's admin API. */
async function project(body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const res = await m.admin("POST", "/projects", { name: "money", ...body });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  const k = await m.admin("POST", `/projects/${id}/keys`, { scopes: ["chat"], mode: "live" });
  expect(k.status).toBe(201);
  return { id, key: ((await k.json()) as { key: string }).key };
}

/** N requests at once, request i on instance i mod 3. */
async function fire(key: string): Promise<{ served: string[]; refused: Map<string, number> }> {
  upstream.script({ body: answerWith(boundMessageTokens(messages), MAX_TOKENS), delayMs: 200 }, N);
  const results = await Promise.all(Array.from({ length: N }, (_, i) => fetch(`${m.instances[i % 3]!.url}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-gw-cache": "off" },
    body: JSON.stringify({ model: MODEL, messages, max_tokens: MAX_TOKENS }),
  })));
  const served: string[] = [];
  const refused = new Map<string, number>();
  for (const res of results) {
    const body = (await res.json()) as { error?: { code: string } };
    if (res.status === 200) served.push(res.headers.get("x-gw-request-id") ?? "");
    else refused.set(`${res.status} ${body.error?.code}`, (refused.get(`${res.status} ${body.error?.code}`) ?? 0) + 1);
  }
  upstream.reset();
  return { served, refused };
}

async function charges(projectId: string): Promise<Array<{ request_id: string; amount: number }>> {
  const rows: Array<{ request_id: string; amount: string }> = await sql`SELECT request_id, amount FROM ledger WHERE project_id = ${projectId} AND kind = 'charge'`;
  return rows.map((r) => ({ request_id: r.request_id, amount: Number(r.amount) }));
}

describe("money across three instances", () => {
  test(`prepaid balance covering ${COVERED}: ${N} concurrent requests serve ${COVERED}, the rest 402 insufficient_credits; one charge row per served request`, async () => {
    const p = await project({ billing: { mode: "prepaid" } });
    // Credited through another instance, once its mirror has the project (the bus carries it).
    await waitFor(async () => (await m.admin("GET", `/projects/${p.id}`, undefined, 1)).status === 200, { what: "the project on instance 1" });
    const credited = await m.admin("POST", `/projects/${p.id}/credits`, { amount: toUsd(COVERED * worst) }, 1);
    expect(credited.status).toBe(200);
    const { served, refused } = await fire(p.key);
    expect(served.length).toBe(COVERED);
    expect(refused).toEqual(new Map([["402 insufficient_credits", N - COVERED]]));

    const [account] = await sql`SELECT balance, reserved FROM accounts WHERE project_id = ${p.id}`;
    expect(Number(account.balance)).toBeGreaterThanOrEqual(0);
    expect({ balance: Number(account.balance), reserved: Number(account.reserved) }).toEqual({ balance: 0, reserved: 0 });
    const rows = await charges(p.id);
    expect(rows.length).toBe(COVERED);
    expect(new Set(rows.map((r) => r.request_id))).toEqual(new Set(served));
    expect(rows.every((r) => r.amount === worst)).toBe(true);
    const [open] = await sql`SELECT count(*)::int AS n FROM ledger_open_holds WHERE project_id = ${p.id}`;
    expect(open.n).toBe(0);
    // Every instance reads the one balance.
    for (let i = 0; i < 3; i++) {
      const view = (await (await m.admin("GET", `/projects/${p.id}`, undefined, i)).json()) as { billing: { balance: number } };
      expect(view.billing.balance).toBe(0);
    }
  });

  test(`daily block budget covering ${COVERED}: ${N} concurrent requests serve ${COVERED}, the rest 402 budget_exceeded; never overspent`, async () => {
    const budget = COVERED * worst;
    const p = await project({ policy: { budgets: { daily: toUsd(budget) }, budget_action: "block" } });
    const { served, refused } = await fire(p.key);
    expect(served.length).toBe(COVERED);
    expect(refused).toEqual(new Map([["402 budget_exceeded", N - COVERED]]));

    const [day] = await sql`SELECT spent, reserved FROM spend_counters WHERE project_id = ${p.id} AND period = 'daily'`;
    expect(Number(day.spent)).toBeLessThanOrEqual(budget);
    expect({ spent: Number(day.spent), reserved: Number(day.reserved) }).toEqual({ spent: budget, reserved: 0 });
    const rows = await charges(p.id);
    expect(new Set(rows.map((r) => r.request_id))).toEqual(new Set(served));
    expect(rows.reduce((n, r) => n + r.amount, 0)).toBe(budget);
  });
});
