// gw.workflow_budget on a multi-instance gw whose Redis is down (docs/scale-out.md): the shared
// reservations cannot be asked, so the instance holds each step against its own, as single-node
// does: concurrent steps through it never pass the budget, and nothing answers 5xx.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { costOf } from "../../src/routing/cost.ts";
import { answerWith, catalogModel, user } from "../flows/billing/billing-helpers.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startPostgres, startRedis, type PostgresService, type Service } from "../helpers/services.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";
import { ADMIN_TOKEN } from "../helpers/test-gw.ts";
import { startSharedInstance, type SharedInstance } from "../helpers/shared-gw.ts";

const MODEL = "openai/gpt-4o-mini";
const MAX_TOKENS = 300;
const N = 30;
const COVERED = 10;

let pg: PostgresService;
let redis: Service;
let upstream: ScriptedUpstream;
let instance: SharedInstance;
beforeAll(async () => {
  [pg, redis, upstream] = await Promise.all([startPostgres(), startRedis(), startScriptedUpstream()]);
  instance = await startSharedInstance(pg, redis, upstreamEnv("openai", upstream.url, "sk-workflow-down"));
});
afterAll(async () => {
  await instance?.stop();
  await Promise.all([upstream?.stop(), redis?.stop(), pg?.stop()]);
});

test(`Redis down: ${N} concurrent steps of one workflow, budget for ${COVERED}: ${COVERED} served, the rest 402, no 5xx`, async () => {
  const admin = (path: string, payload: unknown) => fetch(`${instance.server.url}/admin${path}`, {
    method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(payload),
  });
  const { id } = (await (await admin("/projects", { name: "workflow-down" })).json()) as { id: string };
  const { key } = (await (await admin(`/projects/${id}/keys`, { scopes: ["chat"], mode: "live" })).json()) as { key: string };
  await redis.stop();
  const budget = COVERED * costOf(catalogModel(MODEL), { promptTokens: 0, completionTokens: MAX_TOKENS, cachedTokens: 0 }) * 1.06;
  upstream.script({ body: answerWith(1, MAX_TOKENS), delayMs: 200 }, N);
  const results = await Promise.all(Array.from({ length: N }, () => fetch(`${instance.server.url}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-gw-cache": "off" },
    body: JSON.stringify({ model: MODEL, messages: user("Next step, please."), max_tokens: MAX_TOKENS, gw: { workflow_id: "wf-down", workflow_budget: budget } }),
  })));
  const outcomes = new Map<string, number>();
  for (const res of results) {
    const body = (await res.json()) as { error?: { code: string } };
    const what = res.status === 200 ? "200" : `${res.status} ${body.error?.code}`;
    outcomes.set(what, (outcomes.get(what) ?? 0) + 1);
  }
  expect(outcomes).toEqual(new Map([["200", COVERED], ["402 budget_exceeded", N - COVERED]]));
});
