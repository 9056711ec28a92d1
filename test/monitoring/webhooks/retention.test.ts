// Webhook tables stay bounded (docs/webhooks.md "Retries"): old attempts and events go, an event
// still queued stays, and a pruned event's natural key was already past every period it names.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../../src/store/db.ts";
import { logMaintenance } from "../../../src/store/log-maintenance.ts";
import { pruneWebhooks } from "../../../src/store/repos/webhook-retention.ts";

const DAY = 86_400_000;
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function seeded(now: number) {
  const dir = mkdtempSync(join(tmpdir(), "gw-whret-"));
  dirs.push(dir);
  const db = openDatabase(dir);
  const event = (id: string, age: number) =>
    db.run("INSERT INTO webhook_events (id, project_id, type, natural_key, body, created_at) VALUES (?, 'p', 'test.ping', ?, '{}', ?)", [id, id, now - age]);
  const delivery = (id: string, age: number) =>
    db.run("INSERT INTO webhook_deliveries (id, event_id, endpoint_id, event_type, attempt, created_at) VALUES (?, 'e', 'w', 'test.ping', 1, ?)", [id, now - age]);
  event("evt_old", 91 * DAY);
  event("evt_old_queued", 91 * DAY);
  event("evt_new", 89 * DAY);
  db.run("INSERT INTO webhook_queue (event_id, endpoint_id, attempt, next_attempt_at, created_at) VALUES ('evt_old_queued', 'w', 3, ?, ?)", [now, now]);
  delivery("whd_old", 31 * DAY);
  delivery("whd_new", 29 * DAY);
  return db;
}

const ids = (db: ReturnType<typeof openDatabase>, table: string) => db.query<{ id: string }, []>(`SELECT id FROM ${table} ORDER BY id`).all().map((r) => r.id);

test("attempts older than 30 days and events older than 90 go; a queued event stays", () => {
  const now = Date.UTC(2026, 10, 26);
  const db = seeded(now);
  expect(pruneWebhooks(db, now)).toBe(2);
  expect(ids(db, "webhook_events")).toEqual(["evt_new", "evt_old_queued"]);
  expect(ids(db, "webhook_deliveries")).toEqual(["whd_new"]);
  expect(pruneWebhooks(db, now)).toBe(0);
  db.close();
});

test("the log worker's maintenance pass prunes them, in batches", () => {
  const now = Date.UTC(2026, 10, 26);
  const db = seeded(now);
  const maintenance = logMaintenance(db);
  expect(maintenance.pass(now, 30, 1).more).toBe(true);
  maintenance.pass(now, 30, 1);
  expect(ids(db, "webhook_events")).toEqual(["evt_new", "evt_old_queued"]);
  expect(ids(db, "webhook_deliveries")).toEqual(["whd_new"]);
  db.close();
});
