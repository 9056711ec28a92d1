// The audit log's store (docs/dashboard.md "Audit log"): append-only (UPDATE and DELETE abort),
// newest first with an id cursor, per-project filter, and detail fields named like secrets dropped.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AuditLog, auditEntryView } from "../../src/audit/audit-log.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { openDatabase } from "../../src/store/db.ts";
import { auditLogRepo } from "../../src/store/repos/audit-log.ts";

const dir = mkdtempSync(join(tmpdir(), "gw-audit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("audit log store", () => {
  const db = openDatabase(dir);
  const clock = new ManualClock(Date.parse("2026-01-01T00:00:00Z"));
  const audit = new AuditLog(auditLogRepo(db), clock);
  const actor = { type: "admin_token" as const, id: null, email: null };

  test("records entries, lists newest first with a cursor, narrows by project", async () => {
    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      audit.record({ actor, action: "key.create", projectId: i % 2 === 0 ? "prj_a" : "prj_b", target: `key_${i}`, status: 201, sourceIp: "127.0.0.1" });
    }
    const first = (await audit.list({ limit: 2 }));
    expect(first.data.map((e) => e.target)).toEqual(["key_4", "key_3"]);
    expect(first.hasMore).toBe(true);
    const second = (await audit.list({ limit: 2, after: first.nextCursor ?? undefined }));
    expect(second.data.map((e) => e.target)).toEqual(["key_2", "key_1"]);
    const third = (await audit.list({ limit: 2, after: second.nextCursor ?? undefined }));
    expect(third.data.map((e) => e.target)).toEqual(["key_0"]);
    expect(third.hasMore).toBe(false);
    expect(third.nextCursor).toBeNull();
    expect((await audit.list({ projectId: "prj_a" })).data.map((e) => e.target)).toEqual(["key_4", "key_2", "key_0"]);
  });

  test("the entry has the contract's shape and never keeps a field named like a secret", async () => {
    const row = await audit.record({ actor, action: "provider_key.put", projectId: "prj_a", details: { provider: "openai", api_key: "sk-live-xyz", client_secret: "s", token: "t" } });
    const view = auditEntryView(row);
    expect(view).toEqual({
      object: "audit_entry", id: row.id, created_at: new Date(clock.now()).toISOString(), actor: { type: "admin_token", id: null, email: null },
      source_ip: null, action: "provider_key.put", project_id: "prj_a", target: null, outcome: "success", status: null, details: { provider: "openai" },
    });
    expect(JSON.stringify(db.query("SELECT * FROM audit_log").all())).not.toContain("sk-live-xyz");
  });

  test("UPDATE and DELETE abort: the table is append-only", async () => {
    expect(() => db.run("UPDATE audit_log SET action = 'x'")).toThrow(/append-only/);
    expect(() => db.run("DELETE FROM audit_log")).toThrow(/append-only/);
    expect((await audit.list({ limit: 200 })).data.length).toBe(6);
  });

  test("an entry written is there after the database is closed and opened again", async () => {
    db.close();
    const again = new AuditLog(auditLogRepo(openDatabase(dir)), clock);
    expect((await again.list({ limit: 200 })).data.length).toBe(6);
  });
});
