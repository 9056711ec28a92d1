// gw.workflow_budget across THREE gw processes (docs/routing.md "Workflow budgets", docs/scale-out.md):
// concurrent steps of one workflow, round-robin over the instances, hold their worst case in Redis
// against every instance's reservations, so together they never spend past the budget.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { answerWith, user } from "../flows/billing/billing-helpers.ts";
import { costOf } from "../../src/routing/cost.ts";
import { catalogModel } from "../flows/billing/billing-helpers.ts";
import { startMultiGw, type MultiGw } from "../helpers/multi-gw.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";

const MODEL = "openai/gpt-4o-mini";
const MAX_TOKENS = 300;
const N = 60;
const COVERED = 10;
const messages = user("Plan the next step of the migration in two sentences.");

let upstream: ScriptedUpstream;
let m: MultiGw;
let sql: SQL;
beforeAll(async () => {
  upstream = await startScriptedUpstream();
  m = await startMultiGw(3, { ...upstreamEnv("openai", upstream.url, "sk-workflow"), GW_SEMANTIC_EMBEDDER: "off" });
  sql = new SQL(m.pg.url);
});
afterAll(async () => {
  await sql?.close();
  await m?.stop();
  await upstream?.stop();
});

test(`${N} concurrent steps of one workflow over three instances: the budget covers ${COVERED}, ${COVERED} are served, the rest 402, spent within the budget`, async () => {
  const made = await m.admin("POST", "/projects", { name: "workflow" });
  expect(made.status).toBe(201);
  const { id } = (await made.json()) as { id: string };
  const k = await m.admin("POST", `/projects/${id}/keys`, { scopes: ["chat"], mode: "live" });
  expect(k.status).toBe(201);
  const { key } = (await k.json()) as { key: string };
  // Each answer bills its whole max_tokens: a step's cost is just under its held worst case (all
  // but the prompt's few tokens), so the budget covers exactly COVERED of them, settled or not.
  const model = catalogModel(MODEL);
  const outputCost = costOf(model, { promptTokens: 0, completionTokens: MAX_TOKENS, cachedTokens: 0 });
  const budget = COVERED * outputCost * 1.06;
  upstream.script({ body: answerWith(1, MAX_TOKENS), delayMs: 300 }, N);
  const results = await Promise.all(Array.from({ length: N }, (_, i) => fetch(`${m.instances[i % 3]!.url}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-gw-cache": "off" },
    body: JSON.stringify({ model: MODEL, messages, max_tokens: MAX_TOKENS, gw: { workflow_id: "wf-shared", workflow_budget: budget } }),
  })));
  const outcomes = new Map<string, number>();
  for (const res of results) {
    const body = (await res.json()) as { error?: { code: string } };
    const what = res.status === 200 ? "200" : `${res.status} ${body.error?.code}`;
    outcomes.set(what, (outcomes.get(what) ?? 0) + 1);
  }
  expect(outcomes).toEqual(new Map([["200", COVERED], ["402 budget_exceeded", N - COVERED]]));
  const [spent] = await sql`SELECT coalesce(sum(cost), 0)::float8 / 1e9 AS usd, count(*) FILTER (WHERE status = 200)::int AS served
    FROM requests WHERE project_id = ${id} AND workflow_id = 'wf-shared'`;
  expect(spent.served).toBe(COVERED);
  expect(spent.usd).toBeLessThanOrEqual(budget);
  expect(spent.usd).toBeGreaterThan(budget * 0.9);
});
