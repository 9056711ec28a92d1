// The request log and the ledger after kill -9 under load (docs/billing.md "The ledger"): a request's
// log row and its charge are written in one transaction, so every surviving charge has its row and
// every row its charge; holds left open are released at restart; SIGTERM loses nothing answered.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject } from "../../../src/admin/projects.ts";
import { issueKey } from "../../../src/auth/api-keys.ts";
import { DB_FILE, openDatabase } from "../../../src/store/db.ts";
import { apiKeysRepo } from "../../../src/store/repos/api-keys.ts";
import { ledgerRepo } from "../../../src/store/repos/ledger.ts";
import { projectsRepo } from "../../../src/store/repos/projects.ts";
import { startScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { killAll, Served } from "../../helpers/served.ts";

const dir = mkdtempSync(join(tmpdir(), "gw-billing-crash-"));
const upstream = await startScriptedUpstream();
const ENV = { OPENAI_API_KEY: "sk-crash", OPENAI_BASE_URL: upstream.url, GW_SEMANTIC_EMBEDDER: "off" };
afterAll(async () => {
  await killAll();
  await upstream.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A postpaid project (a charge per answer) and a prepaid one (a hold, then its charge). */
function seed(): { keys: string[]; projects: string[] } {
  const db = openDatabase(dir);
  try {
    const projects = [createProject(projectsRepo(db), { name: "postpaid" }), createProject(projectsRepo(db), { name: "prepaid", billing: { mode: "prepaid" } })];
    ledgerRepo(db).append({ projectId: projects[1]!.id, kind: "credit", amount: 1_000_000_000_000, createdAt: Date.now() });
    const keys = projects.map((p) => issueKey(apiKeysRepo(db), { projectId: p.id, mode: "live" }).secret);
    return { keys, projects: projects.map((p) => p.id) };
  } finally {
    db.close();
  }
}

/** Requests from `loops` callers until `stop` is set; the ids of the answers that came back. */
function load(url: string, keys: string[], loops: number, tag: string) {
  const answered: string[] = [];
  let stop = false;
  let n = 0;
  const one = async (key: string): Promise<void> => {
    while (!stop) {
      const res = await fetch(`${url}/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-gw-cache": "off" },
        body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: `${tag} question ${n++}` }], max_tokens: 20 }),
      }).catch(() => null);
      if (!res) return;
      await res.text().catch(() => "");
      if (res.status === 200) answered.push(res.headers.get("x-gw-request-id")!);
    }
  };
  const done = Promise.all(Array.from({ length: loops }, (_, i) => one(keys[i % keys.length]!)));
  return { answered, done, stop: () => void (stop = true) };
}

describe('docs/billing.md "The ledger": kill -9 under load', () => {
  test("every surviving charge has its log row and every row its charge; SIGTERM loses nothing answered", async () => {
    const { keys, projects } = seed();
    let served = new Served(dir, { env: ENV });
    let answeredBeforeKills = 0;
    for (let cycle = 0; cycle < 8; cycle++) {
      await served.waitUntilServing(keys[0]!);
      const run = load(served.url, keys, 32, `cycle ${cycle}`);
      // Killed while rows and charges are queued, in flight to the log worker, and committing.
      while (run.answered.length < 40 + 30 * cycle) await Bun.sleep(1);
      await served.kill();
      run.stop();
      await run.done;
      answeredBeforeKills += run.answered.length;
      served = new Served(dir, { env: ENV });
    }
    await served.waitUntilServing(keys[0]!);
    // A clean stop under load: everything answered is written, row and charge.
    const last = load(served.url, keys, 8, "last");
    while (last.answered.length < 50) await Bun.sleep(5);
    const stopped = served.terminate();
    last.stop();
    await last.done;
    expect(await stopped).toBe(0);

    const db = new Database(join(dir, DB_FILE), { readonly: true });
    try {
      for (const projectId of projects) {
        const rows = db.query<{ id: string; status: number }, [string]>("SELECT id, status FROM requests WHERE project_id = ?").all(projectId);
        const charges = db.query<{ request_id: string }, [string]>("SELECT request_id FROM ledger WHERE project_id = ? AND kind = 'charge'").all(projectId).map((r) => r.request_id);
        const charged = new Set(charges);
        expect(charged.size).toBe(charges.length);
        expect(charges.length).toBeGreaterThan(0);
        // Every charge has its row; every answered row has its charge.
        const ids = new Set(rows.map((r) => r.id));
        expect(charges.filter((id) => !ids.has(id))).toEqual([]);
        expect(rows.filter((r) => r.status === 200 && !charged.has(r.id)).map((r) => r.id)).toEqual([]);
        // Holds: each closed by its charge or by the release a restart wrote; none left open.
        const holds = db.query<{ request_id: string }, [string]>("SELECT request_id FROM ledger WHERE project_id = ? AND kind = 'hold'").all(projectId).map((r) => r.request_id);
        const closing = new Set(db.query<{ request_id: string }, [string]>("SELECT request_id FROM ledger WHERE project_id = ? AND kind IN ('charge', 'release')").all(projectId).map((r) => r.request_id));
        expect(holds.filter((id) => !closing.has(id))).toEqual([]);
      }
      expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM ledger_open_holds").get()!.n).toBe(0);
      const stored = new Set(db.query<{ id: string }, []>("SELECT id FROM requests").all().map((r) => r.id));
      expect(last.answered.filter((id) => !stored.has(id))).toEqual([]);
      // Most answers before the kills survived (at most the last instants' rows are lost).
      expect(stored.size).toBeGreaterThan(answeredBeforeKills / 2);
    } finally {
      db.close();
    }
  }, 120_000);
});
