// Feedback and invoices across three gw processes on one PostgreSQL (docs/scale-out.md): a request
// served by one instance is rated on another, answered as on one node, stored once and counted in
// every instance's router quality; an invoice on one instance lists the charges the others made.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildCatalog } from "../../src/routing/catalog.ts";
import { openPostgres, type Postgres } from "../../src/store/postgres/connect.ts";
import { startMultiGw, type GwInstance, type MultiGw } from "../helpers/multi-gw.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";
import { get, post } from "../helpers/test-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { json } from "../helpers/expect-json.ts";

const MODEL = "openai/gpt-4o-mini";
const catalogQuality = buildCatalog().get(MODEL)!.quality.translation!;

let m: MultiGw;
let upstream: ScriptedUpstream;
let pg: Postgres;
beforeAll(async () => {
  upstream = await startScriptedUpstream({ record: false });
  m = await startMultiGw(3, upstreamEnv("openai", upstream.url, "sk-operator"));
  pg = openPostgres(m.pg.url, { max: 2, timeoutMs: 20_000 });
});
afterAll(async () => {
  await pg?.close();
  await m?.stop();
  await upstream?.stop();
});

async function projectWithKey(name: string): Promise<{ project: string; key: string }> {
  const { id: project } = await json<{ id: string }>(await m.admin("POST", "/projects", { name }), 201);
  const { key } = await json<{ key: string }>(await m.admin("POST", `/projects/${project}/keys`, { name: "k", scopes: ["chat", "requests"] }), 201);
  return { project, key };
}

let seq = 0;
/** A translation answered by MODEL on instance `i`; its request id. */
async function served(i: GwInstance, key: string): Promise<string> {
  const res = await post(`${i.url}/chat/completions`, key, { model: MODEL, messages: [{ role: "user", content: `Translate "good morning, number ${++seq}" into French.` }] }, { "x-gw-cache": "off" });
  await json(res, 200);
  return res.headers.get("x-gw-request-id")!;
}

const rate = (i: GwInstance, key: string, id: string, body: unknown) => post(`${i.url}/requests/${id}/feedback`, key, body);

/** The quality instance `i`'s router gave MODEL for a gw-auto translation (its logged candidates). */
async function routedQuality(i: GwInstance, key: string): Promise<number | undefined> {
  const res = await post(`${i.url}/chat/completions`, key, { model: "gw-auto", messages: [{ role: "user", content: `Translate "see you at the station, ${++seq}" into Spanish.` }] }, { "x-gw-cache": "off" });
  await json(res, 200);
  const detail = await json<{ task: string; trace: { candidates: Array<{ model: string; quality?: number }> } }>(
    await get(`${i.url}/requests/${res.headers.get("x-gw-request-id")}`, key), 200);
  expect(detail.task).toBe("translation");
  return detail.trace.candidates.find((c) => c.model === MODEL)?.quality;
}

describe("feedback", () => {
  test("a request served by instance 0 is rated on instance 1 with single-node's answers; a second rating replaces the first, stored once", async () => {
    const { project, key } = await projectWithKey("rated");
    const id = await served(m.instances[0]!, key);
    expect(await json(await rate(m.instances[1]!, key, id, { rating: 2 }), 200)).toEqual({ object: "feedback", request_id: id, rating: 2 });
    expect(await json(await rate(m.instances[2]!, key, id, { rating: 4 }), 200)).toEqual({ object: "feedback", request_id: id, rating: 4 });
    const rows = await pg.sql`SELECT rating, counted, model_id, task FROM feedback WHERE project_id = ${project}`;
    expect(rows).toEqual([{ rating: 4, counted: true, model_id: MODEL, task: "translation" }]);
    // Errors as on one node: an unknown id 404, a bad rating 422, another project's request 404.
    const unknown = await json<{ error: { code: string; param: string } }>(await rate(m.instances[1]!, key, "req_nope", { rating: 3 }), 404);
    expect(unknown.error).toMatchObject({ code: "not_found", param: "request_id" });
    await json(await rate(m.instances[1]!, key, id, { rating: 9 }), 422);
    const other = await projectWithKey("other");
    await json(await rate(m.instances[2]!, other.key, id, { rating: 3 }), 404);
  });

  test("ratings made on instance 1 move the router's quality on every instance, to the same figure", async () => {
    const { key } = await projectWithKey("quality");
    const n = 12;
    for (let r = 0; r < n; r++) await json(await rate(m.instances[1]!, key, await served(m.instances[r % 2 === 0 ? 0 : 2]!, key), { rating: 1 }), 200);
    // 12 ratings of 1 (score 0) against a prior weighted 20: the catalog's, moved by the other
    // project's one rating of 4 (score 0.75) above, weighted 1 (the cross-project cap).
    const prior = (catalogQuality * 20 + 0.75) / 21;
    const expected = Math.round(((prior * 20) / (20 + n)) * 1000) / 1000;
    for (const i of m.instances) {
      await waitFor(async () => (await routedQuality(i, key)) === expected, { timeoutMs: 30_000, what: `instance ${i.origin} to route with ${n} ratings (${expected})` });
    }
  });
});

describe("invoices", () => {
  test("an invoice on instance 2 lists the charges made on instances 0 and 1 and a credit added on 1; every instance answers the same", async () => {
    const { project, key } = await projectWithKey("invoiced");
    await json(await m.admin("POST", `/projects/${project}/credits`, { amount: 25 }, 1), 200);
    for (let r = 0; r < 6; r++) await served(m.instances[r % 2]!, key);
    const invoices = await Promise.all(m.instances.map(async (_, i) =>
      json<{ object: string; data: Array<{ month: string; lines: Array<{ model: string; requests: number; charge: number }>; credits: { count: number; amount: number }; totals: { requests: number; charge: number } }> }>(
        await m.admin("GET", `/projects/${project}/invoices`, undefined, i), 200)));
    for (const body of invoices) expect(body).toEqual(invoices[0]!);
    const [current] = invoices[2]!.data;
    expect(current!.month).toBe(new Date().toISOString().slice(0, 7));
    expect(current!.lines.map((l) => [l.model, l.requests])).toEqual([[MODEL, 6]]);
    expect(current!.totals.requests).toBe(6);
    expect(current!.credits).toEqual({ count: 1, amount: 25 });
    const [ledger] = await pg.sql`SELECT sum(amount)::float8 AS charged FROM ledger WHERE project_id = ${project} AND kind = 'charge'`;
    expect(Math.round(current!.totals.charge * 1e9)).toBe(ledger.charged);
    // As on one node: a malformed month is 400 naming it, a month with nothing is empty.
    const bad = await json<{ error: { param: string } }>(await m.admin("GET", `/projects/${project}/invoices?month=2026-13`, undefined, 2), 400);
    expect(bad.error.param).toBe("month");
    const empty = await json<{ data: Array<{ lines: unknown[] }> }>(await m.admin("GET", `/projects/${project}/invoices?month=2020-01`, undefined, 2), 200);
    expect(empty.data.map((d) => d.lines)).toEqual([[]]);
  });
});
