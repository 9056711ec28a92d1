// The webhook stores on a real PostgreSQL (src/store/postgres/webhooks-*.ts): the contract, then
// what only several instances need: a batch stored once per natural key whichever instance sends
// it, due rows claimed by one instance each (FOR UPDATE SKIP LOCKED), a dead claim taken over.
import { describe, expect, test } from "bun:test";
import type { Postgres } from "../../../src/store/postgres/connect.ts";
import { postgresWebhookStores } from "../../../src/store/postgres/webhooks-queue.ts";
import { webhookRetentionJob } from "../../../src/store/postgres/webhooks-retention.ts";
import { migratedPostgresForFile } from "../../helpers/migrated-postgres.ts";
import { endpointRow, eventRow, webhookContract } from "../contract/webhook.contract.ts";

let pg: Postgres;
migratedPostgresForFile({ max: 8, timeoutMs: 10_000 }, (_, pool) => (pg = pool));

let n = 0;
webhookContract("postgres", () => postgresWebhookStores(pg, `gw_contract_${++n}`));

const T = 1_800_000_000_000;

describe("postgres webhook stores across instances", () => {
  test("three instances storing the same events at once: each natural key stored and queued once", async () => {
    const [a, b, c] = ["gw_a", "gw_b", "gw_c"].map((o) => postgresWebhookStores(pg, o));
    const p = `prj_batch_${process.pid}`;
    const endpoint = endpointRow(p);
    await a!.endpoints.insert(endpoint);
    const keys = Array.from({ length: 50 }, (_, i) => `k${i}`);
    const batchOf = () => keys.flatMap((k) => [eventRow(p, k, "budget.threshold_reached", T), eventRow(p, k, "budget.threshold_reached", T)])
      .map((event) => ({ event, exceptEndpoint: null }));
    const stored = await Promise.all([a!, b!, c!].map((s) => s.events.storeMany(batchOf())));
    expect(stored.reduce((sum, m) => sum + m.size, 0)).toBe(50);
    for (const m of stored) for (const endpoints of m.values()) expect(endpoints).toEqual([endpoint.id]);
    const [row] = await pg.sql`SELECT count(*)::int AS events, (SELECT count(*)::int FROM webhook_queue WHERE endpoint_id = ${endpoint.id}) AS queued
      FROM webhook_events WHERE project_id = ${p}`;
    expect(row).toEqual({ events: 50, queued: 50 });
  });

  test("due rows are claimed by one instance each; a claim that expires is taken by another; a replay waits for a live claim", async () => {
    const claimMs = 60_000;
    const stores = ["gw_1", "gw_2", "gw_3"].map((o) => postgresWebhookStores(pg, o, claimMs));
    const p = `prj_claims_${process.pid}`;
    const endpoint = endpointRow(p);
    await stores[0]!.endpoints.insert(endpoint);
    const events = Array.from({ length: 30 }, (_, i) => eventRow(p, `c${i}`, "credits.low", T + 1_000_000));
    await stores[0]!.events.storeMany(events.map((event) => ({ event, exceptEndpoint: null })));
    const now = T + 1_000_000;
    const mine = (rows: Array<{ endpointId: string; eventId: string }>) => rows.filter((r) => r.endpointId === endpoint.id).map((r) => r.eventId);
    const claimed = await Promise.all(stores.map((s) => s.deliveries.due(now, 12)));
    const all = claimed.flatMap(mine);
    expect(new Set(all).size).toBe(all.length);
    const again = await Promise.all(stores.map((s) => s.deliveries.due(now, 100)));
    const total = [...all, ...again.flatMap(mine)];
    expect(total.sort()).toEqual(events.map((e) => e.id).sort());
    // Nothing left to claim while the claims run; past them, another instance takes the rows.
    expect(mine(await stores[1]!.deliveries.due(now + 1_000, 100))).toEqual([]);
    const first = events[0]!.id;
    const holder = Number(String((await pg.sql`SELECT claimed_by FROM webhook_queue WHERE event_id = ${first}`)[0]?.claimed_by).slice(3)) - 1;
    expect(await stores[(holder + 1) % 3]!.events.enqueueOne(first, endpoint.id, now + 1_000)).toBe(false);
    expect(await stores[holder]!.events.enqueueOne(first, endpoint.id, now + 1_000)).toBe(true);
    const taken = mine(await stores[2]!.deliveries.due(now + claimMs + 1, 100));
    expect(taken.length).toBeGreaterThan(0);
    // A rescheduled row is free again once due.
    await stores[2]!.deliveries.reschedule(taken[0]!, endpoint.id, 2, now + claimMs + 5);
    expect(mine(await stores[0]!.deliveries.due(now + claimMs + 5, 100))).toEqual([taken[0]!]);
  });

  test("retention (a leader job): attempts past 30 days and events past 90 go, an event still queued stays", async () => {
    const s = postgresWebhookStores(pg, "gw_retention");
    const p = `prj_retention_${process.pid}`;
    const now = T + 200 * 86_400_000;
    const e = endpointRow(p);
    await s.endpoints.insert(e);
    const old = eventRow(p, "old", "credits.low", now - 91 * 86_400_000);
    const queued = eventRow(p, "queued", "credits.low", now - 91 * 86_400_000);
    const recent = eventRow(p, "recent", "credits.low", now - 10 * 86_400_000);
    await s.events.storeMany([old, queued, recent].map((event) => ({ event, exceptEndpoint: null })));
    await s.deliveries.dequeue(old.id, e.id);
    await s.deliveries.dequeue(recent.id, e.id);
    const attempt = (id: string, at: number) => s.deliveries.record({ id, eventId: recent.id, endpointId: e.id, eventType: "credits.low", attempt: 1,
      createdAt: at, durationMs: 1, statusCode: 200, error: null, responseExcerpt: null });
    await attempt(`whd_old_${process.pid}`, now - 31 * 86_400_000);
    await attempt(`whd_new_${process.pid}`, now - 29 * 86_400_000);
    await pg.sql.begin((tx) => webhookRetentionJob().run(tx, now));
    expect((await s.deliveries.page(e.id, null, 10)).map((d) => d.id)).toEqual([`whd_new_${process.pid}`]);
    expect([await s.events.get(old.id), (await s.events.get(queued.id))?.id, (await s.events.get(recent.id))?.id]).toEqual([null, queued.id, recent.id]);
  });
});
