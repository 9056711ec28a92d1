// Webhooks across THREE gw processes on one PostgreSQL (docs/scale-out.md): an endpoint made on one
// instance gets an event raised on another exactly once, events raised on all three are each
// delivered once by whichever instance claims them, and a failed attempt is retried by any instance.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { json } from "../helpers/expect-json.ts";
import { startMultiGw, type MultiGw } from "../helpers/multi-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

let m: MultiGw;
let sql: SQL;
const receivers: WebhookReceiver[] = [];
beforeAll(async () => {
  m = await startMultiGw(3, { GW_WEBHOOK_ALLOW_LOOPBACK: "1", GW_SEMANTIC_EMBEDDER: "off" });
  sql = new SQL(m.pg.url);
});
afterAll(async () => {
  await sql?.close();
  await m?.stop();
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
