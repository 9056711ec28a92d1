// The ledger writer handing its batches to another connection (the log worker in gw): balances and
// accounts count the charges still on their way, once; a hold sent ahead no longer travels with its
// charge; a failed batch is queued again, in order, and written by the next attempt.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject } from "../../src/admin/projects.ts";
import type { Terms } from "../../src/billing/account.ts";
import { Billing } from "../../src/billing/billing.ts";
import { newRequestId } from "../../src/lib/ids.ts";
import { DB_FILE, openDatabase } from "../../src/store/db.ts";
import { workerLogSink } from "../../src/store/log-worker-sink.ts";
import { ledgerRepo, type LedgerEntry } from "../../src/store/repos/ledger.ts";
import { projectsRepo } from "../../src/store/repos/projects.ts";
import { requestsRepo } from "../../src/store/repos/requests.ts";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Batches commit (through the repo) only when the test says so, or fail. */
function gated(write: (entries: LedgerEntry[]) => void) {
  const held: Array<{ entries: LedgerEntry[]; resolve: () => void; reject: (e: Error) => void }> = [];
  return {
    held,
    sink: (entries: LedgerEntry[]) => new Promise<void>((resolve, reject) => held.push({ entries, resolve, reject })),
    commitNext() {
      const b = held.shift()!;
      write(b.entries);
      b.resolve();
    },
    failNext() {
      held.shift()!.reject(new Error("SQLITE_BUSY: database is locked (simulated)"));
    },
  };
}

function fresh() {
  const dir = mkdtempSync(join(tmpdir(), "gw-ledger-async-"));
  dirs.push(dir);
  const db = openDatabase(dir);
  const repo = ledgerRepo(db);
  const project = createProject(projectsRepo(db), { name: "async" });
  const gate = gated((entries) => repo.appendMany(entries));
  const errors: unknown[] = [];
  const billing = new Billing(repo, (err) => errors.push(err), { sink: gate.sink });
  const count = (kind: string) => db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM ledger WHERE kind = ?").get(kind)!.n;
  return { dir, db, repo, billing, project, gate, count, errors };
}

const prepaid: Terms = { credit: "prepaid", creditLimit: 0, budgets: {}, action: "block", monthlyRequests: null };
/** A charge no log row carries (written by the ledger writer itself). */
const alone = (requestId: string, charge: number) =>
  ({ requestId, model: "openai/gpt-4o-mini", charge, cost: charge, inputTokens: 1, outputTokens: 1, byok: false });

describe("ledger batches committed by another connection", () => {
  test("a charge in flight counts in the balance and in a freshly loaded account, once, before and after its commit", async () => {
    const { billing, project, gate, count } = fresh();
    billing.credit(project.id, 0.000001, null); // 1,000 nano-USD
    billing.settle(project.id, undefined, alone(newRequestId(), 300));
    billing.writer.flush();
    expect(gate.held).toHaveLength(1);
    expect(count("charge")).toBe(0);
    expect(billing.balance(project.id)).toBe(700);
    // The account loads now, with the charge still on its way: 800 would overspend.
    expect(billing.reserve(project.id, newRequestId(), prepaid, 800).ok).toBe(false);
    expect(billing.reserve(project.id, newRequestId(), prepaid, 600).ok).toBe(true);
    gate.commitNext();
    await Promise.resolve();
    expect(count("charge")).toBe(1);
    expect(billing.balance(project.id)).toBe(700);
  });

  test("a hold already sent is not carried by its charge's log row", () => {
    const { billing, project, gate } = fresh();
    billing.credit(project.id, 0.000001, null);
    const requestId = newRequestId();
    const r = billing.reserve(project.id, requestId, prepaid, 500);
    if (!r.ok) throw new Error("refused");
    billing.writer.flush();
    expect(gate.held[0]!.entries.map((e) => e.kind)).toEqual(["hold"]);
    const charge = billing.settle(project.id, r.hold, { ...alone(requestId, 200), withRow: true })!;
    expect(charge.entries.map((e) => e.kind)).toEqual(["charge"]);
  });

  test("a failed batch is queued again, in order, and the next attempt writes it", async () => {
    const { billing, project, gate, count, errors } = fresh();
    billing.credit(project.id, 0.000001, null);
    const first = newRequestId();
    const r = billing.reserve(project.id, first, prepaid, 100);
    if (!r.ok) throw new Error("refused");
    billing.release(r.hold);
    billing.writer.flush();
    gate.failNext();
    await Promise.resolve();
    await Promise.resolve();
    expect(errors).toHaveLength(1);
    expect(billing.writer.pending).toBe(2);
    billing.writer.flush();
    expect(gate.held[0]!.entries.map((e) => [e.kind, e.requestId])).toEqual([["hold", first], ["release", first]]);
    const drained = billing.writer.drain();
    gate.commitNext();
    await drained;
    expect(count("hold")).toBe(1);
    expect(count("release")).toBe(1);
    expect(billing.writer.pending).toBe(0);
  });

  test("through the log worker: holds and releases are committed by its connection", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gw-ledger-worker-"));
    dirs.push(dir);
    const db = openDatabase(dir);
    const repo = ledgerRepo(db);
    const project = createProject(projectsRepo(db), { name: "worker" });
    const sink = workerLogSink(join(dir, DB_FILE), () => {}, requestsRepo(db), undefined, {
      cache: () => {}, ledger: (entries) => repo.appendMany(entries),
    });
    const billing = new Billing(repo, () => {}, { sink: (entries) => sink.writeLedger(entries) });
    billing.credit(project.id, 0.000001, null);
    const r = billing.reserve(project.id, newRequestId(), prepaid, 100);
    if (!r.ok) throw new Error("refused");
    billing.release(r.hold);
    await billing.drain();
    const kinds = db.query<{ kind: string }, []>("SELECT kind FROM ledger ORDER BY seq").all().map((x) => x.kind);
    expect(kinds).toEqual(["credit", "hold", "release"]);
    expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM ledger_open_holds").get()!.n).toBe(0);
    await sink.close();
    db.close();
  });
});
