// The webhook service on PostgreSQL's stores, two "instances" in one process on a real cluster:
// events emitted on both with one natural key are stored once (batched, off the caller's path) and
// wake the emitting instance's dispatcher; an endpoint made on one is attempted once by the pair; an
// endpoint another instance made is named for the audit log once this one has read it.
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { systemClock } from "../../../src/lib/clock.ts";
import { secretBox } from "../../../src/lib/secret-box.ts";
import { WebhookEmitter } from "../../../src/monitoring/webhooks/emitter.ts";
import { SharedEventSink } from "../../../src/monitoring/webhooks/shared-emit.ts";
import { Webhooks } from "../../../src/monitoring/webhooks/webhooks.ts";
import { openPostgres, type Postgres } from "../../../src/store/postgres/connect.ts";
import { postgresWebhookStores } from "../../../src/store/postgres/webhooks-queue.ts";
import { migratedPostgresForFile } from "../../helpers/migrated-postgres.ts";
import { waitFor } from "../../helpers/wait-for.ts";
import { startWebhookReceiver } from "../../helpers/webhook-receiver.ts";

let pg: Postgres;
migratedPostgresForFile({ max: 8, timeoutMs: 10_000 }, (_, pool) => (pg = pool));

const box = secretBox(randomBytes(32));

function instance(name: string) {
  const stores = postgresWebhookStores(pg, name);
  const errors: unknown[] = [];
  const emitter = new WebhookEmitter(new SharedEventSink(stores.events, (err) => errors.push(err)), systemClock, (err) => errors.push(err));
  const webhooks = new Webhooks(stores, { emitter, secrets: box, clock: systemClock, allowLoopback: true, onError: (err) => errors.push(err) });
  return { stores, emitter, webhooks, errors };
}

describe("the webhook service on PostgreSQL", () => {
  test("one natural key emitted on two instances: stored and delivered once; the emitting instance is woken", async () => {
    const a = instance("gw_svc_a");
    const b = instance("gw_svc_b");
    const r = startWebhookReceiver();
    try {
      const p = `prj_svc_${process.pid}`;
      const created = await a.webhooks.create(p, { url: r.url });
      let woken = 0;
      b.emitter.onStored(() => woken++);
      const input = { projectId: p, type: "credits.low" as const, key: "topup:7", data: { balance: 1 } };
      // Nothing awaited: emit only queues in memory.
      expect(a.emitter.emit(input)).not.toBeNull();
      expect(b.emitter.emit(input)).not.toBeNull();
      expect(b.emitter.emit(input)).not.toBeNull();
      await Promise.all([a.emitter.flush(), b.emitter.flush()]);
      const [row] = await pg.sql`SELECT count(*)::int AS n FROM webhook_events WHERE project_id = ${p}`;
      expect(row.n).toBe(1);
      expect(woken).toBeLessThanOrEqual(1);
      await Promise.all([a.webhooks.runDue(), b.webhooks.runDue()]);
      await waitFor(async () => (await a.webhooks.deliveries(created.id, {})).data.length === 1, { what: "the attempt recorded" });
      await Promise.all([a.webhooks.runDue(), b.webhooks.runDue()]);
      expect(r.received).toHaveLength(1);
      expect(r.verify(created.secret)).toMatchObject({ type: "credits.low", data: { balance: 1 } });
      expect([...a.errors, ...b.errors]).toEqual([]);
    } finally {
      await r.stop();
    }
  });

  test("an endpoint made on another instance is named for the audit log once read here, and after its deletion", async () => {
    const a = instance("gw_svc_c");
    const b = instance("gw_svc_d");
    const p = `prj_owner_${process.pid}`;
    const created = await a.webhooks.create(p, { url: "http://127.0.0.1:9/in" });
    expect(b.webhooks.projectOf({ webhookId: created.id })).toBeNull();
    expect(await b.webhooks.ownerOf({ webhookId: created.id })).toBe(p);
    await b.webhooks.update(created.id, { description: "from b" });
    expect(b.webhooks.projectOf({ webhookId: created.id })).toBe(p);
    await b.webhooks.remove(created.id);
    expect(await a.webhooks.get(created.id)).toBeNull();
    expect(b.webhooks.projectOf({ webhookId: created.id })).toBe(p);
  });

  test("a pass claims only what it starts: with 10 attempts in flight and 60 rows due, 54 are claimed and 6 left for the next pass", async () => {
    const a = instance("gw_svc_e");
    const r = startWebhookReceiver();
    // Every attempt stays in flight long enough for the second pass to be looked at.
    r.respond = () => ({ status: 200, delayMs: 8_000 });
    try {
      const p = `prj_room_${process.pid}`;
      const created = await a.webhooks.create(p, { url: r.url });
      const store = (n: number, from: number) => a.stores.events.storeMany(Array.from({ length: n }, (_, i) => ({
        event: { id: `evt_room_${process.pid}_${from + i}`, projectId: p, type: "credits.low", naturalKey: `k${from + i}`, body: "{}", createdAt: Date.now() },
        exceptEndpoint: null,
      })));
      await store(10, 0);
      const first = a.webhooks.runDue();
      await r.waitFor(10, 15_000);
      await store(60, 10);
      const second = a.webhooks.runDue();
      await r.waitFor(64, 15_000);
      const [row] = await pg.sql`SELECT count(*) FILTER (WHERE claimed_by IS NULL)::int AS free, count(*)::int AS queued FROM webhook_queue WHERE endpoint_id = ${created.id}`;
      expect(row).toEqual({ free: 6, queued: 70 });
      await Promise.all([first, second]);
      r.respond = null;
      await a.webhooks.runDue();
      expect(r.received).toHaveLength(70);
      expect(new Set(r.received.map((q) => q.headers["webhook-id"])).size).toBe(70);
    } finally {
      await r.stop();
    }
  });

  test("PostgreSQL out of reach: emitting still returns at once, the failure is said once, and the events are stored once it answers; an unreadable queue is said once", async () => {
    const real = postgresWebhookStores(pg, "gw_svc_f");
    const away = openPostgres("postgres://gw@127.0.0.1:1/none", { max: 1, timeoutMs: 200 });
    const unreachable = postgresWebhookStores(away, "gw_svc_f");
    let target = unreachable.events;
    let tries = 0;
    const errors: string[] = [];
    // The sink's store: PostgreSQL out of reach for the first three batches, then the real one.
    const sink = new SharedEventSink({ storeMany: (batch) => (++tries > 3 ? (target = real.events) : target).storeMany(batch) }, (_, what) => errors.push(what), 10);
    const emitter = new WebhookEmitter(sink, systemClock, (_, type) => errors.push(type));
    const p = `prj_away_${process.pid}`;
    for (let n = 0; n < 5; n++) expect(emitter.emit({ projectId: p, type: "credits.added", key: String(n), data: { n } })).not.toBeNull();
    await waitFor(async () => (await pg.sql`SELECT count(*)::int AS n FROM webhook_events WHERE project_id = ${p}`)[0].n === 5, { what: "the five events stored" });
    expect(tries).toBe(4);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toStartWith("webhook events not stored; retrying");
    // The dispatcher's passes on the unreachable queue: said once.
    const webhooks = new Webhooks(unreachable, { emitter, secrets: box, clock: systemClock, allowLoopback: true, onError: (_, what) => errors.push(what) });
    for (let n = 0; n < 3; n++) expect(await webhooks.runDue()).toBe(0);
    expect(errors.slice(1)).toEqual(["webhook queue not read (said once until it is)"]);
    await away.close();
  });
});
