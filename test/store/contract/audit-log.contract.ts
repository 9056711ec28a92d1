// The audit log's contract (src/store/repos/audit-log.ts AuditStore), run against SQLite and
// PostgreSQL through AuditLog: entries written on one instance list on another, newest first, paged
// by cursor and narrowed by project; fields named like secrets are never stored.
import { describe, expect, test } from "bun:test";
import { AuditLog, auditEntryView } from "../../../src/audit/audit-log.ts";
import { ManualClock } from "../../../src/lib/clock.ts";
import type { AuditStore } from "../../../src/store/repos/audit-log.ts";

export interface AuditHarness {
  store: AuditStore;
  /** Another instance's store on the same data. */
  other: AuditStore;
  /** Every stored row as text: what a copy of the database would show. */
  dump(): Promise<string>;
}

let made = 0;
const unique = (what: string) => `${what}_${process.pid}_${++made}_${Math.random().toString(36).slice(2, 8)}`;
const actor = { type: "admin_token" as const, id: null, email: null };

export function auditLogContract(name: string, make: () => Promise<AuditHarness>): void {
  describe(`${name}: audit log contract`, () => {
    test("entries written on one instance list newest first on another, by cursor and by project", async () => {
      const { store, other } = await make();
      const clock = new ManualClock(Date.parse("2026-01-01T00:00:00Z"));
      const [a, b] = [unique("prj"), unique("prj")];
      const writer = new AuditLog(store, clock);
      for (let i = 0; i < 5; i++) {
        clock.advance(1000);
        await writer.record({ actor, action: "key.create", projectId: i % 2 === 0 ? a : b, target: `key_${i}`, status: 201, sourceIp: "127.0.0.1" });
      }
      const reader = new AuditLog(other, clock);
      const first = await reader.list({ limit: 2, projectId: a });
      expect(first.data.map((e) => e.target)).toEqual(["key_4", "key_2"]);
      expect(first.hasMore).toBe(true);
      const second = await reader.list({ limit: 2, projectId: a, after: first.nextCursor ?? undefined });
      expect(second.data.map((e) => e.target)).toEqual(["key_0"]);
      expect(second.hasMore).toBe(false);
      expect(second.nextCursor).toBeNull();
      expect((await reader.list({ projectId: b })).data.map((e) => e.target)).toEqual(["key_3", "key_1"]);
      // Unfiltered: this run's five entries are the newest five (ids sort by time).
      const all = await reader.list({ limit: 5 });
      expect(all.data.map((e) => e.target)).toEqual(["key_4", "key_3", "key_2", "key_1", "key_0"]);
      const rest = await reader.list({ limit: 200, after: all.data[1]!.id });
      expect(rest.data.slice(0, 3).map((e) => e.target)).toEqual(["key_2", "key_1", "key_0"]);
    });

    test("an entry reads back with every field; a field named like a secret is never stored", async () => {
      const { store, other, dump } = await make();
      const clock = new ManualClock(Date.parse("2026-02-01T00:00:00Z"));
      const projectId = unique("prj");
      const row = await new AuditLog(store, clock).record({
        actor: { type: "sso", id: "dse_1", email: "alice@example.com" }, action: "provider_key.put", projectId, target: "openai",
        outcome: "failure", status: 503, sourceIp: "::1", details: { provider: "openai", api_key: "sk-live-xyz", client_secret: "s", token: "t", n: 2 },
      });
      const [back] = (await new AuditLog(other, clock).list({ projectId })).data;
      expect(back).toEqual(row);
      expect(auditEntryView(back!)).toMatchObject({ actor: { type: "sso", id: "dse_1", email: "alice@example.com" }, details: { provider: "openai", n: 2 }, outcome: "failure", status: 503 });
      expect(await dump()).not.toContain("sk-live-xyz");
    });
  });
}
