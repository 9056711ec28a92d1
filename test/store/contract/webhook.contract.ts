// The webhook stores' contract (docs/webhooks.md), run against SQLite's and PostgreSQL's: endpoints
// and their failure state, events stored once per natural key and queued for subscribed endpoints,
// the queue's retries, and the record of attempts paged newest first.
import { describe, expect, test } from "bun:test";
import type { StoredDelivery, StoredEndpoint, StoredEvent, WebhookStores } from "../../../src/store/repos/webhook-stores.ts";

/** Fresh stores; every test uses its own project ids. */
export type MakeWebhookStores = () => WebhookStores | Promise<WebhookStores>;

let seq = 0;
const T0 = 1_790_000_000_000;

export const endpointRow = (projectId: string, over: Partial<StoredEndpoint> = {}): StoredEndpoint => ({
  id: `whe_${process.pid}_${++seq}`, projectId, url: "https://hooks.example.com/in", events: null, description: null, enabled: true,
  sealedSecret: "v1.sealed", sealedPreviousSecret: null, rotatedAt: null, failingSince: null, disabledReason: null, createdAt: T0 + seq, updatedAt: T0 + seq,
  ...over,
});
export const eventRow = (projectId: string, key: string, type = "credits.low", createdAt = T0): StoredEvent =>
  ({ id: `evt_${process.pid}_${++seq}`, projectId, type, naturalKey: key, body: `{"key":"${key}"}`, createdAt });
const deliveryRow = (e: StoredEvent, endpointId: string, attempt: number, id: string): StoredDelivery => ({
  id, eventId: e.id, endpointId, eventType: e.type, attempt, createdAt: T0 + attempt, durationMs: 12, statusCode: attempt === 1 ? 503 : 200,
  error: null, responseExcerpt: attempt === 1 ? "busy" : null,
});

export function webhookContract(name: string, make: MakeWebhookStores): void {
  describe(`${name}: webhook stores contract`, () => {
    const project = () => `prj_wh_${process.pid}_${++seq}`;

    test("endpoints: insert, get, list in creation order, update, rotate, failing and healthy, remove", async () => {
      const s = await make();
      const p = project();
      const a = endpointRow(p, { events: ["credits.low"], description: "ops" });
      const b = endpointRow(p);
      await s.endpoints.insert(a);
      await s.endpoints.insert(b);
      expect(await s.endpoints.get(a.id)).toEqual(a);
      expect((await s.endpoints.list(p)).map((e) => e.id)).toEqual([a.id, b.id]);
      await s.endpoints.update(a.id, { url: "https://other.example.com/x", events: null, description: null }, T0 + 100);
      expect(await s.endpoints.get(a.id)).toMatchObject({ url: "https://other.example.com/x", events: null, description: null, updatedAt: T0 + 100 });
      await s.endpoints.rotate(a.id, "v1.new", "v1.sealed", T0 + 200);
      expect(await s.endpoints.get(a.id)).toMatchObject({ sealedSecret: "v1.new", sealedPreviousSecret: "v1.sealed", rotatedAt: T0 + 200 });
      await s.endpoints.markFailing(a.id, T0 + 300);
      await s.endpoints.markFailing(a.id, T0 + 400);
      expect((await s.endpoints.get(a.id))?.failingSince).toBe(T0 + 300);
      await s.endpoints.markHealthy(a.id);
      expect((await s.endpoints.get(a.id))?.failingSince).toBeNull();
      expect(await s.endpoints.remove(a.id)).toBe(true);
      expect(await s.endpoints.remove(a.id)).toBe(false);
      expect(await s.endpoints.get(a.id)).toBeNull();
    });

    test("an event is stored once per natural key, queued for the enabled endpoints subscribed to it, but the one excepted", async () => {
      const s = await make();
      const p = project();
      const all = endpointRow(p);
      const lowOnly = endpointRow(p, { events: ["credits.low"] });
      const other = endpointRow(p, { events: ["invoice.created"] });
      const off = endpointRow(p, { enabled: false, disabledReason: "gone" });
      const except = endpointRow(p);
      for (const e of [all, lowOnly, other, off, except]) await s.endpoints.insert(e);
      const e1 = eventRow(p, "k1");
      expect((await s.events.store(e1, except.id))?.sort()).toEqual([all.id, lowOnly.id].sort());
      expect(await s.events.store({ ...eventRow(p, "k1"), body: "again" })).toBeNull();
      expect(await s.events.get(e1.id)).toEqual(e1);
      // The same key under another type or project is another event.
      expect(await s.events.store(eventRow(p, "k1", "invoice.created"))).not.toBeNull();
      expect(await s.events.store(eventRow(project(), "k1"))).toEqual([]);
      expect(await s.deliveries.queued(e1.id, all.id)).toEqual({ eventId: e1.id, endpointId: all.id, attempt: 1, nextAttemptAt: T0 });
      expect(await s.deliveries.queued(e1.id, other.id)).toBeNull();
    });

    test("the queue: due rows oldest first, reschedule, dequeue; disabling or deleting an endpoint drops its rows", async () => {
      const s = await make();
      const p = project();
      const a = endpointRow(p);
      const b = endpointRow(p);
      await s.endpoints.insert(a);
      await s.endpoints.insert(b);
      const later = eventRow(p, "later", "credits.low", T0 + 50);
      const first = eventRow(p, "first", "credits.low", T0 + 10);
      await s.events.store(later);
      await s.events.store(first);
      const mine = (rows: Array<{ eventId: string; endpointId: string }>) => rows.filter((r) => r.endpointId === a.id || r.endpointId === b.id);
      expect(mine(await s.deliveries.due(T0 + 20, 100)).map((r) => r.eventId)).toEqual([first.id, first.id]);
      await s.deliveries.reschedule(first.id, a.id, 2, T0 + 1_000);
      expect(await s.deliveries.queued(first.id, a.id)).toEqual({ eventId: first.id, endpointId: a.id, attempt: 2, nextAttemptAt: T0 + 1_000 });
      await s.deliveries.dequeue(first.id, b.id);
      expect(await s.deliveries.queued(first.id, b.id)).toBeNull();
      await s.endpoints.disable(a.id, "failing", T0 + 5, T0 + 60);
      expect(await s.endpoints.get(a.id)).toMatchObject({ enabled: false, disabledReason: "failing", failingSince: T0 + 5 });
      expect(await s.deliveries.queued(first.id, a.id)).toBeNull();
      expect(await s.deliveries.queued(later.id, a.id)).toBeNull();
      await s.endpoints.update(a.id, { enabled: true }, T0 + 70);
      expect(await s.endpoints.get(a.id)).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
      await s.endpoints.remove(b.id);
      expect(await s.deliveries.queued(later.id, b.id)).toBeNull();
    });

    test("a test event is queued for its one endpoint; a replay queues the event again as attempt 1", async () => {
      const s = await make();
      const p = project();
      const only = endpointRow(p, { events: ["invoice.created"] });
      await s.endpoints.insert(only);
      const ping = eventRow(p, "test:1", "test.ping", T0 + 5);
      await s.events.storeFor(ping, only.id);
      expect(await s.deliveries.queued(ping.id, only.id)).toMatchObject({ attempt: 1, nextAttemptAt: T0 + 5 });
      await s.deliveries.reschedule(ping.id, only.id, 3, T0 + 9_000);
      expect(await s.events.enqueueOne(ping.id, only.id, T0 + 10)).toBe(true);
      expect(await s.deliveries.queued(ping.id, only.id)).toMatchObject({ attempt: 1, nextAttemptAt: T0 + 10 });
    });

    test("deliveries: one row per attempt, read by id, paged newest first", async () => {
      const s = await make();
      const p = project();
      const a = endpointRow(p);
      await s.endpoints.insert(a);
      const e = eventRow(p, "d");
      await s.events.store(e);
      const ids = [1, 2, 3].map((n) => `whd_${process.pid}_${seq}_${n}`);
      for (const [i, id] of ids.entries()) await s.deliveries.record(deliveryRow(e, a.id, i + 1, id));
      expect(await s.deliveries.get(ids[0]!)).toEqual(deliveryRow(e, a.id, 1, ids[0]!));
      expect(await s.deliveries.get("whd_missing")).toBeNull();
      expect((await s.deliveries.page(a.id, null, 2)).map((d) => d.id)).toEqual([ids[2]!, ids[1]!]);
      expect((await s.deliveries.page(a.id, ids[1]!, 2)).map((d) => d.id)).toEqual([ids[0]!]);
    });
  });
}
