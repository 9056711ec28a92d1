// The request path's money in the multi-instance mode, in one process (docs/scale-out.md): a gw
// built on openSharedState holds, charges and refuses through PostgreSQL (never its own SQLite),
// with single-node's 402 codes and texts, and answers 503 when PostgreSQL is gone.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { boundMessageTokens } from "../../src/analysis/tokens.ts";
import { createProject } from "../../src/admin/projects.ts";
import { issueKey } from "../../src/auth/api-keys.ts";
import { formatUsd, toUsd } from "../../src/billing/money.ts";
import type { RunningServer } from "../../src/server.ts";
import type { SharedState } from "../../src/store/shared.ts";
import type { CreateProjectBody } from "../../src/schema/admin.ts";
import { answerWith, user, worstChargeNano } from "../flows/billing/billing-helpers.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startPostgres, startRedis, type PostgresService, type Service } from "../helpers/services.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";
import { ADMIN_TOKEN, post } from "../helpers/test-gw.ts";
import { startSharedInstance, type SharedInstance } from "../helpers/shared-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";

const MODEL = "openai/gpt-4o-mini";
const MAX_TOKENS = 300;
const messages = user("Summarise the quarterly numbers for the board in three short bullet points.");
/** Every answer uses its whole reservation (worst == actual), so exactly the covered number is served. */
const worst = worstChargeNano(messages, MAX_TOKENS);

let pg: PostgresService;
let redis: Service;
let upstream: ScriptedUpstream;
let shared: SharedState;
let server: RunningServer;
let instance: SharedInstance;

beforeAll(async () => {
  [pg, redis, upstream] = await Promise.all([startPostgres(), startRedis(), startScriptedUpstream()]);
  instance = await startSharedInstance(pg, redis, upstreamEnv("openai", upstream.url, "sk-money"));
  ({ server, shared } = instance);
});
afterAll(async () => {
  await instance?.stop();
  await Promise.all([upstream?.stop(), redis?.stop(), pg?.stop()]);
});

/** A project with a live key, in PostgreSQL and in the instance's mirror of it. */
async function project(body: Omit<CreateProjectBody, "name">): Promise<{ id: string; key: string }> {
  const { balance: _, ...p } = createProject(server.deps.repos.projects, { name: "money", ...body });
  const { key, secret } = issueKey(server.deps.repos.apiKeys, { projectId: p.id, scopes: ["chat", "embeddings"], mode: "live" });
  await shared.tenants.projects.create(p);
  await shared.tenants.keys.create(key);
  return { id: p.id, key: secret };
}

const chat = (key: string) => post(`${server.url}/chat/completions`, key, { model: MODEL, messages, max_tokens: MAX_TOKENS }, { "x-gw-cache": "off" });

async function fire(key: string, n: number): Promise<{ served: number; refused: Map<string, number>; messages: Set<string> }> {
  // A slow upstream keeps the admitted requests in flight while the others reserve.
  upstream.script({ body: answerWith(boundMessageTokens(messages), MAX_TOKENS), delayMs: 200 }, n);
  const results = await Promise.all(Array.from({ length: n }, () => chat(key)));
  let served = 0;
  const refused = new Map<string, number>();
  const texts = new Set<string>();
  for (const res of results) {
    const body = (await res.json()) as { error?: { code: string; message: string } };
    if (res.status === 200) served++;
    else {
      expect(res.status).toBe(402);
      const code = body.error?.code ?? "?";
      refused.set(code, (refused.get(code) ?? 0) + 1);
      texts.add(body.error?.message ?? "");
    }
  }
  upstream.reset();
  return { served, refused, messages: texts };
}

async function ledger(projectId: string): Promise<Array<{ kind: string; request_id: string | null; amount: number }>> {
  const rows: Array<{ kind: string; request_id: string | null; amount: string }> =
    await shared.pg.sql`SELECT kind, request_id, amount FROM ledger WHERE project_id = ${projectId} ORDER BY seq`;
  return rows.map((r) => ({ kind: r.kind, request_id: r.request_id, amount: Number(r.amount) }));
}

const charges = async (projectId: string) => (await ledger(projectId)).filter((r) => r.kind === "charge");

describe("money on PostgreSQL, one instance", () => {
  test("prepaid: credit for 50 worst cases serves 50 of 200, the rest 402 insufficient_credits; the balance and ledger are PostgreSQL's", async () => {
    const p = await project({ billing: { mode: "prepaid" } });
    await shared.money.credit(p.id, 50 * worst, "test", Date.now());
    const { served, refused, messages: texts } = await fire(p.key, 200);
    expect(served).toBe(50);
    expect(refused).toEqual(new Map([["insufficient_credits", 150]]));
    // Single-node's text, with PostgreSQL's figures.
    for (const t of texts) expect(t).toMatch(/^The prepaid balance \(\$[\d.]+\) cannot cover this request's reservation of \$[\d.]+ \(\$[\d.]+ reserved by requests in flight\)\. Add credits\.$/);

    expect(await shared.money.figures(p.id)).toEqual({ balance: 0, reserved: 0 });
    const rows = await ledger(p.id);
    const charges = rows.filter((r) => r.kind === "charge");
    expect(charges.length).toBe(50);
    expect(new Set(charges.map((r) => r.request_id)).size).toBe(50);
    expect(charges.every((r) => r.amount === worst)).toBe(true);
    expect(rows.filter((r) => r.kind === "hold").length).toBe(50);
    expect(rows.filter((r) => r.kind === "release").length).toBe(0);
    // Nothing of it in the instance's own SQLite ledger.
    expect(server.deps.db.query("SELECT count(*) AS n FROM ledger WHERE project_id = ?").get(p.id)).toEqual({ n: 0 });
  });

  test("a daily block budget covering 50 serves 50 of 200, the rest 402 budget_exceeded", async () => {
    const p = await project({ policy: { budgets: { daily: toUsd(50 * worst) }, budget_action: "block" } });
    const { served, refused, messages: texts } = await fire(p.key, 200);
    expect(served).toBe(50);
    expect(refused).toEqual(new Map([["budget_exceeded", 150]]));
    for (const t of texts) expect(t).toStartWith(`The project's daily budget (${formatUsd(50 * worst)}) cannot cover this request: `);
    const [day] = await shared.pg.sql`SELECT spent, reserved, requests FROM spend_counters WHERE project_id = ${p.id} AND period = 'daily'`;
    expect({ spent: Number(day.spent), reserved: Number(day.reserved), requests: Number(day.requests) }).toEqual({ spent: 50 * worst, reserved: 0, requests: 50 });
    // Postpaid without a limit: the balance goes below zero by what was charged.
    expect(await shared.money.figures(p.id)).toEqual({ balance: -50 * worst, reserved: 0 });
  });

  test("budget_action downgrade leaves out a model that could pass the budget, as single-node does (402 when none is left); warn serves past the budget", async () => {
    const small = toUsd(worst / 2);
    const down = await project({ policy: { budgets: { daily: small }, budget_action: "downgrade" } });
    const refused = await chat(down.key);
    expect(refused.status).toBe(402);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("budget_exceeded");
    // Routing narrows by the room left (test/scale-out/downgrade.test.ts): the one model asked for is left out.
    expect(body.error.message).toBe(`The model '${MODEL}' could cost more than the project's budget allows (daily, remaining ${formatUsd(worst / 2)}).`);
    const warn = await project({ policy: { budgets: { daily: small }, budget_action: "warn" } });
    upstream.script({ body: answerWith(boundMessageTokens(messages), MAX_TOKENS) }, 1);
    expect((await chat(warn.key)).status).toBe(200);
    upstream.reset();
    expect((await charges(warn.id)).length).toBe(1);
  });

  test("a stream is charged once, committed by the end of the stream", async () => {
    const p = await project({ billing: { mode: "prepaid" } });
    await shared.money.credit(p.id, 10 * worst, "test", Date.now());
    const res = await post(`${server.url}/chat/completions`, p.key, { model: MODEL, messages, max_tokens: MAX_TOKENS, stream: true }, { "x-gw-cache": "off" });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain("gw.summary");
    const rows = await charges(p.id);
    expect(rows.length).toBe(1);
    expect(rows[0]?.request_id).toBe(res.headers.get("x-gw-request-id"));
    expect(await shared.money.figures(p.id)).toEqual({ balance: 10 * worst - rows[0]!.amount, reserved: 0 });
  });

  test("no terms to check (postpaid, no budgets): no hold, the charge is written at meter", async () => {
    const p = await project({});
    upstream.script({ body: answerWith(boundMessageTokens(messages), MAX_TOKENS) }, 1);
    expect((await chat(p.key)).status).toBe(200);
    upstream.reset();
    expect((await ledger(p.id)).map((r) => [r.kind, r.amount])).toEqual([["charge", worst]]);
    expect(await shared.money.figures(p.id)).toEqual({ balance: -worst, reserved: 0 });
  });

  test("embeddings: held and charged through PostgreSQL like chat", async () => {
    const p = await project({ billing: { mode: "prepaid" } });
    await shared.money.credit(p.id, 1_000_000_000, "test", Date.now());
    const res = await post(`${server.url}/embeddings`, p.key, { model: "openai/text-embedding-3-small", input: "quarterly numbers" });
    expect(res.status).toBe(200);
    const rows = await ledger(p.id);
    expect(rows.map((r) => r.kind)).toEqual(["credit", "hold", "charge"]);
    expect(await shared.money.figures(p.id)).toEqual({ balance: 1_000_000_000 - rows[2]!.amount, reserved: 0 });
  });

  test("a failed upstream call releases its hold: nothing charged, nothing left reserved", async () => {
    const p = await project({ billing: { mode: "prepaid" } });
    await shared.money.credit(p.id, 10 * worst, "test", Date.now());
    upstream.script({ status: 400 }, 1);
    const res = await chat(p.key);
    expect(res.status).toBe(400);
    upstream.reset();
    // The release is not awaited by the answer: wait for its row.
    await waitFor(async () => (await ledger(p.id)).some((r) => r.kind === "release"), { what: "the release row" });
    expect((await ledger(p.id)).map((r) => r.kind)).toEqual(["credit", "hold", "release"]);
    expect(await shared.money.figures(p.id)).toEqual({ balance: 10 * worst, reserved: 0 });
  });

  test("admin API: credits are PostgreSQL's, and the project view shows its balance", async () => {
    const p = await project({ billing: { mode: "prepaid" } });
    const admin = (method: string, path: string, body?: unknown) => fetch(`${server.url}/admin${path}`, {
      method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const credited = await admin("POST", `/projects/${p.id}/credits`, { amount: 12.5 });
    expect(credited.status).toBe(200);
    expect(await credited.json()).toEqual({ object: "credits", balance: 12.5 });
    expect(await shared.money.figures(p.id)).toEqual({ balance: 12_500_000_000, reserved: 0 });
    expect((await admin("POST", `/projects/${p.id}/credits`, { amount: -1 })).status).toBe(400);
    // A charge through the gateway shows in the view read back.
    upstream.script({ body: answerWith(boundMessageTokens(messages), MAX_TOKENS) }, 1);
    expect((await chat(p.key)).status).toBe(200);
    upstream.reset();
    const view = (await (await admin("GET", `/projects/${p.id}`)).json()) as { billing: { balance: number } };
    expect(view.billing.balance).toBe(toUsd(12_500_000_000 - worst));
    const list = (await (await admin("GET", "/projects")).json()) as { data: Array<{ id: string; billing: { balance: number } }> };
    expect(list.data.find((x) => x.id === p.id)?.billing.balance).toBe(toUsd(12_500_000_000 - worst));
    expect(server.deps.db.query("SELECT count(*) AS n FROM ledger WHERE project_id = ?").get(p.id)).toEqual({ n: 0 });
  });

  test("PostgreSQL gone: a request needing money answers 503 service_unavailable in the envelope", async () => {
    const p = await project({ billing: { mode: "prepaid" } });
    await pg.stop();
    const res = await chat(p.key);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; type: string } };
    expect(body.error.code).toBe("service_unavailable");
    expect(res.headers.get("retry-after")).toBe("5");
    expect(upstream.callCount()).toBe(0);
  });
});
