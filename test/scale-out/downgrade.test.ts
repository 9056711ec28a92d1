// budget_action downgrade on a multi-instance gw (docs/billing.md "Budgets", docs/scale-out.md "Money
// on the request path"): the room left is read from PostgreSQL's spend counters, so routing leaves out
// the models that could pass the budget and serves a cheaper one, as single-node does, instead of 402.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { answerWith, user, usd, worstChargeNano } from "../flows/billing/billing-helpers.ts";
import { requestDetail } from "../helpers/flow-helpers.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startPostgres, startRedis, type PostgresService, type Service } from "../helpers/services.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";
import { ADMIN_TOKEN, post } from "../helpers/test-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { startSharedInstance, type SharedInstance } from "../helpers/shared-gw.ts";

let pg: PostgresService;
let redis: Service;
let upstream: ScriptedUpstream;
let instance: SharedInstance;

beforeAll(async () => {
  [pg, redis, upstream] = await Promise.all([startPostgres(), startRedis(), startScriptedUpstream()]);
  instance = await startSharedInstance(pg, redis, upstreamEnv("openai", upstream.url, "sk-downgrade"));
});
afterAll(async () => {
  await instance?.stop();
  await Promise.all([upstream?.stop(), redis?.stop(), pg?.stop()]);
});

const messages = user("Analyse the trade-offs of event sourcing for a billing system and recommend an approach.");
const body = { model: "gw-quality", messages, max_tokens: 1_000 };

async function project(policy: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const admin = (path: string, payload: unknown) => fetch(`${instance.server.url}/admin${path}`, {
    method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(payload),
  });
  const made = await admin("/projects", { name: "downgrade", policy });
  expect(made.status).toBe(201);
  const { id } = (await made.json()) as { id: string };
  const k = await admin(`/projects/${id}/keys`, { scopes: ["chat", "requests"], mode: "live" });
  expect(k.status).toBe(201);
  return { id, key: ((await k.json()) as { key: string }).key };
}

const chat = (key: string, payload: Record<string, unknown>) => {
  upstream.script({ body: answerWith(30, 40) });
  return post(`${instance.server.url}/chat/completions`, key, payload, { "x-gw-cache": "off" });
};

test("a downgrade budget leaves out the models that could pass it, read from PostgreSQL; the trace says why", async () => {
  const { key: free } = await project({});
  const first = await chat(free, body);
  expect(first.status).toBe(200);
  const dearest = (await first.json()) as { model: string };
  const worst = worstChargeNano(messages, 1_000, dearest.model);

  // Half the unconstrained choice's worst case: it no longer fits.
  const { id, key } = await project({ budgets: { daily: usd(worst / 2) }, budget_action: "downgrade" });
  const res = await chat(key, body);
  expect(res.status).toBe(200);
  const answer = (await res.json()) as { model: string; gw: { request_id: string } };
  expect(answer.model).not.toBe(dearest.model);
  expect(worstChargeNano(messages, 1_000, answer.model)).toBeLessThanOrEqual(worst / 2);
  const { body: detail } = await requestDetail(instance.server.url, key, answer.gw.request_id);
  const trace = detail.trace as unknown as { candidates: Array<{ model: string; excluded?: string }>; reasons: string[]; billing: { notes?: string[] } };
  expect(trace.candidates.find((c) => c.model === dearest.model)?.excluded).toMatch(/^could cost more than the project's budget allows \(daily, remaining \$/);
  // As single-node: the note in the reasons and the billing trace, and budget.downgraded once for the day.
  const note = /^budget_action downgrade: only models within the daily budget's remaining \$/;
  expect(trace.reasons.some((r) => note.test(r))).toBe(true);
  expect(trace.billing.notes?.some((n) => note.test(n))).toBe(true);
  expect((await chat(key, body)).status).toBe(200);
  const day = new Date().toISOString().slice(0, 10);
  let events: Array<{ natural_key: string; body: string }> = [];
  await waitFor(async () => {
    events = await instance.shared.pg.sql`SELECT natural_key, body FROM webhook_events WHERE project_id = ${id} AND type = 'budget.downgraded'`;
    return events.length > 0;
  }, { timeoutMs: 20_000, what: "budget.downgraded in PostgreSQL" });
  expect(events.map((e) => e.natural_key)).toEqual([`daily:${day}`]);
  expect(JSON.parse(events[0]!.body).data).toMatchObject({ period: "daily", period_key: day, request_id: answer.gw.request_id });
});

test("what every instance spent counts: the room is PostgreSQL's budget minus its spend counters", async () => {
  const { key: free } = await project({});
  const dearest = ((await (await chat(free, body)).json()) as { model: string }).model;
  const worst = worstChargeNano(messages, 1_000, dearest);
  const { id, key } = await project({ budgets: { daily: usd(worst * 3) }, budget_action: "downgrade" });
  const roomy = (await (await chat(key, body)).json()) as { model: string };
  expect(roomy.model).toBe(dearest);
  // Another instance's charges of the day, as its settles leave them: half a worst case is left.
  await instance.shared.pg.sql`UPDATE spend_counters SET spent = ${Math.round(worst * 2.5)} WHERE project_id = ${id} AND period = 'daily'`;
  const res = await chat(key, body);
  expect(res.status).toBe(200);
  expect(((await res.json()) as { model: string }).model).not.toBe(dearest);
  await instance.shared.pg.sql`UPDATE spend_counters SET spent = ${Math.round(worst * 3)} WHERE project_id = ${id} AND period = 'daily'`;
  const none = await chat(key, body);
  expect(none.status).toBe(402);
  expect(((await none.json()) as { error: { code: string } }).error.code).toBe("budget_exceeded");
  const explicit = await chat(key, { ...body, model: dearest });
  expect(explicit.status).toBe(402);
  expect(((await explicit.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: "budget_exceeded", param: "model" });
});
