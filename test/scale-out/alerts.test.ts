// Alert rules and incidents across THREE gw processes on one PostgreSQL (docs/scale-out.md): a rule
// made on instance 0 is listed on the others; failures answered by instances 1 and 2 open ONE
// incident, which the leader's successor keeps (no second one); PATCH and DELETE work anywhere. A
// budget rule reads the spend charged through every instance.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { json } from "../helpers/expect-json.ts";
import { startMultiGw, type GwInstance, type MultiGw } from "../helpers/multi-gw.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";

let upstream: ScriptedUpstream;
let m: MultiGw;
let sql: SQL;
beforeAll(async () => {
  upstream = await startScriptedUpstream();
  m = await startMultiGw(3, { ...upstreamEnv("openai", upstream.url, "sk-alerts"), GW_SEMANTIC_EMBEDDER: "off", GW_MONITOR_INTERVAL_S: "1" });
  sql = new SQL(m.pg.url);
}, 180_000);
afterAll(async () => {
  await sql?.close();
  await m?.stop();
  await upstream?.stop();
});

type Json = Record<string, unknown>;
const LEADS = "this instance is now the leader: it runs the periodic jobs";
const leads = (i: GwInstance) => i.output().split("\n").some((line) => line.startsWith("{") && (JSON.parse(line) as { msg?: string }).msg === LEADS);

async function chat(i: GwInstance, key: string): Promise<number> {
  const res = await fetch(`${i.url}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-gw-cache": "off" },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "Name one prime number." }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Runs of the leader's evaluation job so far, and the instance that ran the last. */
async function evaluations(): Promise<{ runs: number; holder: string | null }> {
  const [row]: Array<{ runs: number; holder: string }> = await sql`SELECT runs, holder FROM leader_jobs WHERE name = 'alert evaluation'`;
  return { runs: row?.runs ?? 0, holder: row?.holder ?? null };
}

const incidentRows = async (ruleId: string) =>
  (await sql`SELECT id, status FROM incidents WHERE rule_id = ${ruleId} ORDER BY id`) as Array<{ id: string; status: string }>;

test("budget_used_pct reads the spend every instance charged: one incident once the warn budget is passed", async () => {
  // First in the file: the next test's failures open the provider's circuit for a while.
  const admin = m.admin;
  const project = await json<{ id: string }>(await admin("POST", "/projects", { name: "budget", policy: { budgets: { daily: 0.00001 }, budget_action: "warn" } }), 201);
  const { key } = await json<{ key: string }>(await admin("POST", `/projects/${project.id}/keys`, { scopes: ["chat"], mode: "live" }), 201);
  const rule = await json<{ id: string }>(await admin("POST", `/projects/${project.id}/alert-rules`, { name: "budget", metric: "budget_used_pct", op: "gt", threshold: 100, window: "1m" }), 201);
  for (const i of [1, 2]) await waitFor(async () => (await admin("GET", `/projects/${project.id}`, undefined, i)).status === 200, { what: `the project on instance ${i}` });
  for (const i of [0, 1, 2, 1]) expect(await chat(m.instances[i]!, key)).toBe(200);
  const [spent] = await sql`SELECT sum(spent)::float8 AS nano FROM spend_counters WHERE project_id = ${project.id} AND period = 'daily'`;
  expect(Number(spent?.nano)).toBeGreaterThan(10_000); // past 0.00001 USD
  await waitFor(async () => (await incidentRows(rule.id)).length > 0, { what: "the budget incident", timeoutMs: 30_000 });
  const incidents = await json<{ data: Json[] }>(await admin("GET", `/projects/${project.id}/incidents`, undefined, 1), 200);
  expect(incidents.data).toEqual([expect.objectContaining({ rule_id: rule.id, status: "opened", metric: "budget_used_pct" })]);
  expect(Number(incidents.data[0]!.last_value)).toBeGreaterThan(100);
}, 120_000);

test("a rule made on one instance; failures through the two others open one incident, kept across a leader change; PATCH and DELETE anywhere", async () => {
  const project = await json<{ id: string }>(await m.admin("POST", "/projects", { name: "alerts" }), 201);
  const { key } = await json<{ key: string }>(await m.admin("POST", `/projects/${project.id}/keys`, { scopes: ["chat"], mode: "live" }), 201);
  const rule = await json<Json>(await m.admin("POST", `/projects/${project.id}/alert-rules`,
    { name: "errors", metric: "error_rate", op: "gt", threshold: 50, window: "5m", min_requests: 6, severity: "critical" }), 201);
  const ruleId = String(rule.id);
  for (const i of [1, 2]) {
    await waitFor(async () => (await m.admin("GET", `/projects/${project.id}/alert-rules`, undefined, i)).status === 200, { what: `the project on instance ${i}` });
    const listed = await json<{ data: Json[] }>(await m.admin("GET", `/projects/${project.id}/alert-rules`, undefined, i), 200);
    expect(listed.data.map((r) => r.id)).toEqual([ruleId]);
  }

  // Eight failures, all through instances 1 and 2 (none through 0, where the rule was made).
  upstream.script({ status: 500 }, 1_000);
  for (let n = 0; n < 8; n++) expect(await chat(m.instances[1 + (n % 2)]!, key)).toBeGreaterThanOrEqual(500);
  upstream.reset();

  await waitFor(async () => (await incidentRows(ruleId)).length > 0, { what: "the incident", timeoutMs: 30_000 });
  const [opened] = await incidentRows(ruleId);
  const seen = await json<{ data: Json[] }>(await m.admin("GET", `/projects/${project.id}/incidents`, undefined, 2), 200);
  expect(seen.data).toEqual([expect.objectContaining({ id: opened!.id, rule_id: ruleId, status: "opened", severity: "critical", metric: "error_rate" })]);
  const rules = await json<{ data: Json[] }>(await m.admin("GET", `/projects/${project.id}/alert-rules`, undefined, 1), 200);
  expect(rules.data[0]).toMatchObject({ id: ruleId, state: "firing" });

  // Two more passes still breaching: the same one incident.
  const before = await evaluations();
  await waitFor(async () => (await evaluations()).runs >= before.runs + 2, { what: "two more evaluations", timeoutMs: 30_000 });
  expect(await incidentRows(ruleId)).toEqual([{ id: opened!.id, status: "opened" }]);

  // The leader dies: another takes over with the rule's stored state, so still one incident.
  const leader = m.instances.findIndex(leads);
  expect(leader).toBeGreaterThanOrEqual(0);
  const holder = (await evaluations()).holder;
  await m.instances[leader]!.kill();
  const others = [0, 1, 2].filter((i) => i !== leader);
  await waitFor(async () => {
    const e = await evaluations();
    return e.holder !== holder && e.runs >= before.runs + 4;
  }, { what: "evaluations by the next leader", timeoutMs: 60_000 });
  expect(await incidentRows(ruleId)).toEqual([{ id: opened!.id, status: "opened" }]);

  // Disabled through one survivor: the incident resolves, seen through the other.
  const patched = await json<Json>(await m.admin("PATCH", `/alert-rules/${ruleId}`, { enabled: false }, others[0]), 200);
  expect(patched).toMatchObject({ id: ruleId, enabled: false, state: "normal" });
  const resolved = await json<{ data: Json[] }>(await m.admin("GET", `/projects/${project.id}/incidents?status=resolved`, undefined, others[1]), 200);
  expect(resolved.data.map((i) => i.id)).toEqual([opened!.id]);
  expect(await json<Json>(await m.admin("DELETE", `/alert-rules/${ruleId}`, undefined, others[1]), 200)).toEqual({ object: "alert_rule", id: ruleId, deleted: true });
  expect((await json<{ data: Json[] }>(await m.admin("GET", `/projects/${project.id}/alert-rules`, undefined, others[0]), 200)).data).toEqual([]);
  expect(await incidentRows(ruleId)).toEqual([{ id: opened!.id, status: "resolved" }]);
  // Each transition raised one webhook event, whichever instance raised it (stored by natural key).
  const events = async () => (await sql`SELECT type, natural_key FROM webhook_events WHERE project_id = ${project.id} AND type LIKE 'incident.%' ORDER BY type`) as Array<{ type: string; natural_key: string }>;
  await waitFor(async () => (await events()).length >= 2, { what: "the incident events", timeoutMs: 15_000 });
  expect(await events()).toEqual([
    { type: "incident.opened", natural_key: `${opened!.id}:opened` },
    { type: "incident.resolved", natural_key: `${opened!.id}:resolved` },
  ]);
}, 180_000);
