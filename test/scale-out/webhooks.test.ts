// Webhooks across THREE gw processes on one PostgreSQL (docs/scale-out.md): an endpoint made on one
// instance gets an event raised on another exactly once, events raised on all three are each
// delivered once by whichever instance claims them, and a failed attempt is retried by any instance;
// budget crossings caused by requests on all three are raised once each.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { boundMessageTokens } from "../../src/analysis/tokens.ts";
import { toUsd } from "../../src/billing/money.ts";
import { answerWith, user, worstChargeNano } from "../flows/billing/billing-helpers.ts";
import { json } from "../helpers/expect-json.ts";
import { startMultiGw, type MultiGw } from "../helpers/multi-gw.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

let m: MultiGw;
let sql: SQL;
let upstream: ScriptedUpstream;
const receivers: WebhookReceiver[] = [];
beforeAll(async () => {
  upstream = await startScriptedUpstream();
  m = await startMultiGw(3, { ...upstreamEnv("openai", upstream.url, "sk-hooks"), GW_WEBHOOK_ALLOW_LOOPBACK: "1", GW_SEMANTIC_EMBEDDER: "off" });
  sql = new SQL(m.pg.url);
});
afterAll(async () => {
  await sql?.close();
  await m?.stop();
  await upstream?.stop();
  for (const r of receivers) await r.stop();
});

/** A project made on instance 0, once every instance's mirror has it. */
async function project(name: string): Promise<string> {
  const { id } = await json<{ id: string }>(await m.admin("POST", "/projects", { name }), 201);
  for (const i of [1, 2]) await waitFor(async () => (await m.admin("GET", `/projects/${id}`, undefined, i)).status === 200, { what: `${id} on instance ${i}` });
  return id;
}

async function endpoint(projectId: string, r: WebhookReceiver, instance = 0, events?: string[]): Promise<{ id: string; secret: string }> {
  return json(await m.admin("POST", `/projects/${projectId}/webhooks`, { url: r.url, ...(events ? { events } : {}) }, instance), 201);
}

const receiver = () => {
  const r = startWebhookReceiver();
  receivers.push(r);
  return r;
};

/** Resolves once nothing is queued for the endpoint and `attempts` attempts are recorded: every send is over. */
async function settled(endpointId: string, attempts: number): Promise<void> {
  await waitFor(async () => {
    const [row] = await sql`SELECT (SELECT count(*)::int FROM webhook_queue WHERE endpoint_id = ${endpointId}) AS queued,
      (SELECT count(*)::int FROM webhook_deliveries WHERE endpoint_id = ${endpointId}) AS attempts`;
    return row.queued === 0 && row.attempts >= attempts;
  }, { timeoutMs: 30_000, what: `${attempts} attempts for ${endpointId}, none queued` });
}

const ids = (r: WebhookReceiver) => r.received.map((q) => q.headers["webhook-id"]);
const typeOf = (body: string) => (JSON.parse(body) as { type: string }).type;

describe("webhooks across three instances", () => {
  test("an endpoint made on instance 0 gets a key event raised on instance 1 exactly once, signed with its secret; any instance lists it", async () => {
    const p = await project("hooks-one");
    const r = receiver();
    const hook = await endpoint(p, r, 0, ["security.key_created"]);
    const { id: keyId } = await json<{ id: string }>(await m.admin("POST", `/projects/${p}/keys`, { scopes: ["chat"], mode: "live" }, 1), 201);
    await r.waitFor(1, 15_000);
    await settled(hook.id, 1);
    expect(r.received).toHaveLength(1);
    expect(r.verify(hook.secret)).toMatchObject({ type: "security.key_created", project_id: p, data: { key_id: keyId } });
    const page = await json<{ data: Array<{ attempt: number; status_code: number; event_type: string }> }>(
      await m.admin("GET", `/webhooks/${hook.id}/deliveries`, undefined, 2), 200);
    expect(page.data.map((d) => [d.event_type, d.attempt, d.status_code])).toEqual([["security.key_created", 1, 200]]);
    // Edits on one instance are every instance's: disabled on 2, enabled again on 1.
    await json(await m.admin("PATCH", `/webhooks/${hook.id}`, { enabled: false }, 2), 200);
    expect(await json(await m.admin("GET", `/projects/${p}/webhooks`, undefined, 1), 200)).toMatchObject({ data: [{ id: hook.id, enabled: false }] });
  });

  test("30 events raised on all three instances at once: each delivered exactly once; a test ping from instance 2 answers its attempt", async () => {
    const p = await project("hooks-many");
    const r = receiver();
    const hook = await endpoint(p, r, 1, ["security.key_created", "security.key_revoked"]);
    const made = await Promise.all(Array.from({ length: 30 }, async (_, n) =>
      (await json<{ id: string }>(await m.admin("POST", `/projects/${p}/keys`, { scopes: ["chat"], mode: "live", name: `k${n}` }, n % 3), 201)).id));
    await r.waitFor(30, 30_000);
    await settled(hook.id, 30);
    expect(r.received).toHaveLength(30);
    expect(new Set(ids(r)).size).toBe(30);
    const keyIds = r.received.map((q) => (JSON.parse(q.body) as { data: { key_id: string } }).data.key_id);
    expect(keyIds.sort()).toEqual(made.sort());
    const ping = await json<{ attempt: number; status_code: number; event_type: string }>(await m.admin("POST", `/webhooks/${hook.id}/test`, undefined, 2), 200);
    expect(ping).toMatchObject({ attempt: 1, status_code: 200, event_type: "test.ping" });
    await settled(hook.id, 31);
    expect(r.received.map((q) => typeOf(q.body)).filter((t) => t === "test.ping")).toHaveLength(1);
  });

  test("a receiver failing then recovering: the retry is made (by any instance) with the same webhook-id, the attempts read on every instance", async () => {
    const p = await project("hooks-retry");
    const r = receiver();
    const hook = await endpoint(p, r, 2, ["security.key_created"]);
    r.reply({ status: 503, body: "busy" }, 1);
    await json(await m.admin("POST", `/projects/${p}/keys`, { scopes: ["chat"], mode: "live" }, 0), 201);
    // The second attempt is due 5 s (plus jitter) after the first.
    const [first, second] = await r.waitFor(2, 30_000);
    await settled(hook.id, 2);
    expect(r.received).toHaveLength(2);
    expect(second?.headers["webhook-id"]).toBe(first?.headers["webhook-id"] ?? "");
    expect(r.verify(hook.secret, second)).toMatchObject({ type: "security.key_created" });
    for (const i of [0, 1, 2]) {
      const page = await json<{ data: Array<{ attempt: number; status_code: number; response_excerpt: string | null }> }>(
        await m.admin("GET", `/webhooks/${hook.id}/deliveries`, undefined, i), 200);
      expect(page.data.map((d) => [d.attempt, d.status_code])).toEqual([[2, 200], [1, 503]]);
    }
    // The endpoint is healthy again: its failure mark was cleared by the success.
    const [row] = await sql`SELECT failing_since FROM webhook_endpoints WHERE id = ${hook.id}`;
    expect(row.failing_since).toBeNull();
  });
});

describe("billing events across three instances", () => {
  const MAX_TOKENS = 300;
  const messages = user("Give three short bullet points on the quarter.");
  /** Every answer's usage is its worst case, so each charge is exactly `worst`. */
  const worst = worstChargeNano(messages, MAX_TOKENS);

  /** `n` requests one after the other, request i on instance i mod 3; their statuses. */
  async function requests(key: string, n: number): Promise<number[]> {
    upstream.script({ body: answerWith(boundMessageTokens(messages), MAX_TOKENS) }, n);
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) {
      const res = await fetch(`${m.instances[i % 3]!.url}/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-gw-cache": "off" },
        body: JSON.stringify({ model: "openai/gpt-4o-mini", messages, max_tokens: MAX_TOKENS }),
      });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    upstream.reset();
    return statuses;
  }

  async function budgeted(name: string, daily: number, action: "warn" | "block") {
    const p = await project(name);
    await json(await m.admin("PATCH", `/projects/${p}`, { policy: { budgets: { daily: toUsd(daily) }, budget_action: action } }), 200);
    const r = receiver();
    const hook = await endpoint(p, r, 1, ["budget.threshold_reached", "budget.exceeded"]);
    const { key } = await json<{ key: string }>(await m.admin("POST", `/projects/${p}/keys`, { scopes: ["chat"], mode: "live" }, 2), 201);
    for (const i of [0, 1, 2]) {
      await waitFor(async () => {
        const res = await m.admin("GET", `/projects/${p}`, undefined, i);
        return JSON.stringify(await res.json()).includes(`"budget_action":"${action}"`);
      }, { what: `the budget on instance ${i}` });
    }
    return { p, r, hook, key };
  }

  const events = (r: WebhookReceiver) => r.received.map((q) => JSON.parse(q.body) as { type: string; data: Record<string, unknown> })
    .map((e) => [e.type, e.data.percent ?? e.data.action]).sort();

  test("warn: ten charges on three instances pass a budget of 4.5: 50, 80 and 100 % and budget.exceeded raised once each, one budget_events row", async () => {
    const { p, r, hook, key } = await budgeted("budget-warn", Math.round(4.5 * worst), "warn");
    expect(await requests(key, 10)).toEqual(Array(10).fill(200));
    await r.waitFor(4, 30_000);
    await settled(hook.id, 4);
    expect(events(r)).toEqual([["budget.exceeded", "warn"], ["budget.threshold_reached", 100], ["budget.threshold_reached", 50], ["budget.threshold_reached", 80]]);
    const rows = await sql`SELECT period, action, spent FROM budget_events WHERE project_id = ${p}`;
    expect(rows.map((b: Record<string, unknown>) => [b.period, b.action])).toEqual([["daily", "warn"]]);
    // The spend the leader saw on its first pass past the budget: the fifth charge at the soonest
    // (4.5 worst), the tenth at the latest, as a pass may fall between two of the ten requests.
    const spent = Number((rows[0] as { spent: unknown }).spent);
    expect(spent % worst).toBe(0);
    expect(spent / worst).toBeGreaterThanOrEqual(5);
    expect(spent / worst).toBeLessThanOrEqual(10);
  });

  test("block: a budget of 2.5 serves two, the refusals on other instances raise budget.exceeded once (naming a refused request)", async () => {
    const { p, r, hook, key } = await budgeted("budget-block", Math.round(2.5 * worst), "block");
    expect(await requests(key, 6)).toEqual([200, 200, 402, 402, 402, 402]);
    await r.waitFor(3, 30_000);
    await settled(hook.id, 3);
    expect(events(r)).toEqual([["budget.exceeded", "block"], ["budget.threshold_reached", 50], ["budget.threshold_reached", 80]]);
    const exceeded = r.received.map((q) => JSON.parse(q.body) as { type: string; data: { request_id: string } }).find((e) => e.type === "budget.exceeded");
    const [refused] = await sql`SELECT status FROM requests WHERE project_id = ${p} AND id = ${exceeded?.data.request_id ?? ""}`;
    expect(refused?.status).toBe(402);
  });

  test("prepaid credit covering two: a credit made on instance 1 raises credits.added, the refusal on another raises credits.depleted once", async () => {
    const p = await project("credits-out");
    await json(await m.admin("PATCH", `/projects/${p}`, { billing: { mode: "prepaid" } }), 200);
    const r = receiver();
    const hook = await endpoint(p, r, 2, ["credits.added", "credits.depleted"]);
    const { key } = await json<{ key: string }>(await m.admin("POST", `/projects/${p}/keys`, { scopes: ["chat"], mode: "live" }, 0), 201);
    for (const i of [0, 1, 2]) {
      await waitFor(async () => JSON.stringify(await (await m.admin("GET", `/projects/${p}`, undefined, i)).json()).includes('"prepaid"'), { what: `prepaid on instance ${i}` });
    }
    await json(await m.admin("POST", `/projects/${p}/credits`, { amount: toUsd(Math.round(2.5 * worst)) }, 1), 200);
    expect(await requests(key, 5)).toEqual([200, 200, 402, 402, 402]);
    await r.waitFor(2, 30_000);
    await settled(hook.id, 2);
    const got = r.received.map((q) => JSON.parse(q.body) as { type: string; data: { reason?: string; request_id?: string } });
    expect(got.map((e) => e.type).sort()).toEqual(["credits.added", "credits.depleted"]);
    const depleted = got.find((e) => e.type === "credits.depleted");
    expect(depleted?.data.reason).toBe("request_refused");
    const [refused] = await sql`SELECT error_code FROM requests WHERE project_id = ${p} AND id = ${depleted?.data.request_id ?? ""}`;
    expect(refused?.error_code).toBe("insufficient_credits");
  });
});

// Last: it kills every instance.
describe("a killed instance's claim", () => {
  test("expires: a new instance sends the event the killed one was sending (same webhook-id), and records it", async () => {
    const p = await project("hooks-killed");
    const r = receiver();
    const hook = await endpoint(p, r, 0, ["security.key_created"]);
    // The first attempt hangs past the kill; the claim stays with a dead instance.
    r.reply({ status: 200, delayMs: 20_000 }, 1);
    await json(await m.admin("POST", `/projects/${p}/keys`, { scopes: ["chat"], mode: "live" }, 1), 201);
    const [first] = await r.waitFor(1, 15_000);
    const [claim] = await sql`SELECT claimed_by, claimed_until FROM webhook_queue WHERE endpoint_id = ${hook.id}`;
    expect(claim?.claimed_by).toStartWith("gw_");
    await Promise.all(m.instances.map((i) => i.kill()));
    const fresh = await m.start();
    const [, second] = await r.waitFor(2, 60_000);
    expect(second?.headers["webhook-id"]).toBe(first?.headers["webhook-id"] ?? "");
    expect(r.verify(hook.secret, second)).toMatchObject({ type: "security.key_created", project_id: p });
    // Not before the claim ran out.
    expect(second!.time).toBeGreaterThanOrEqual(Number(claim?.claimed_until));
    await settled(hook.id, 1);
    const page = await json<{ data: Array<{ attempt: number; status_code: number }> }>(await fetch(`${fresh.url}/admin/webhooks/${hook.id}/deliveries`, {
      headers: { authorization: `Bearer ${m.env.GW_ADMIN_TOKEN}` },
    }), 200);
    expect(page.data.map((d) => [d.attempt, d.status_code])).toEqual([[1, 200]]);
  });
});
