// Read-then-write transactions are IMMEDIATE (docs/availability.md "Storage"): the release of open
// holds at start, while another process writes, waits for the write lock and succeeds. A deferred
// transaction would read first, then fail to upgrade its lock with "database is locked".
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DB_FILE, openDatabase } from "../../src/store/db.ts";
import { ledgerRepo } from "../../src/store/repos/ledger.ts";

/** A child process that takes the write lock, says so, writes, and commits a moment later (while
 * this process waits on the lock; its busy timeout is 5 s). */
const WRITER = `
import { Database } from "bun:sqlite";
const db = new Database(process.argv[2]);
db.run("PRAGMA busy_timeout = 5000");
db.run("BEGIN IMMEDIATE");
db.run("INSERT INTO ledger (project_id, kind, amount, created_at) VALUES ('prj_other', 'credit', 1, 1)");
process.stdout.write("locked\\n");
await Bun.sleep(200);
db.run("COMMIT");
db.close();
`;

test("releaseOpenHolds beside another connection's write transaction waits for it and succeeds", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gw-immediate-"));
  try {
    const db = openDatabase(dir);
    const ledger = ledgerRepo(db);
    ledger.appendMany([{ projectId: "prj_a", kind: "hold", amount: 5, requestId: "req_1", createdAt: 1 }]);
    const script = join(dir, "writer.ts");
    await Bun.write(script, WRITER);
    const child = Bun.spawn([process.execPath, script, join(dir, DB_FILE)], { stdout: "pipe" });
    const reader = child.stdout.getReader();
    let seen = "";
    while (!seen.includes("locked")) {
      const { done, value } = await reader.read();
      if (done) throw new Error("the writer process ended before taking the lock");
      seen += new TextDecoder().decode(value);
    }
    const released = ledger.releaseOpenHolds(2);
    expect(released).toBe(1);
    expect(ledger.openHoldCount()).toBe(0);
    expect(await child.exited).toBe(0);
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
