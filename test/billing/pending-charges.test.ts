// Request charges carried by their log rows (docs/billing.md "The ledger"): written with the row in
// one transaction; until committed, balances, accounts and invoices count them from memory, once,
// including in the instant between the log worker's commit and its answer.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject } from "../../src/admin/projects.ts";
import type { Terms } from "../../src/billing/account.ts";
import { Billing } from "../../src/billing/billing.ts";
import { invoiceFor } from "../../src/billing/invoices.ts";
import { monthKey } from "../../src/billing/periods.ts";
import { newRequestId } from "../../src/lib/ids.ts";
import { openDatabase } from "../../src/store/db.ts";
import { prepareRow } from "../../src/store/log-batch-codec.ts";
import { LogWriter } from "../../src/store/log-writer.ts";
import { ledgerRepo } from "../../src/store/repos/ledger.ts";
import { projectsRepo } from "../../src/store/repos/projects.ts";
import { requestsRepo, type RequestRecord } from "../../src/store/repos/requests.ts";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function fresh() {
  const dir = mkdtempSync(join(tmpdir(), "gw-pending-"));
  dirs.push(dir);
  const db = openDatabase(dir);
  const repo = ledgerRepo(db);
  const project = createProject(projectsRepo(db), { name: "pending" });
  const billing = new Billing(repo, () => {});
  const requests = requestsRepo(db);
  const count = (kind: string) => db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM ledger WHERE kind = ?").get(kind)!.n;
  return { db, repo, billing, requests, project, count };
}

function row(projectId: string, id = newRequestId()): RequestRecord {
  return {
    id, projectId, keyId: "key_x", traceId: `trc_${id.slice(4)}`, createdAt: Date.now(), endpoint: "chat.completions",
    requestedModel: "openai/gpt-4o-mini", selectedModel: "openai/gpt-4o-mini", provider: "openai", task: "chat", taskSubtype: null,
    inputTokens: 10, outputTokens: 20, cost: 0.0001, saved: 0, cache: null, status: 200, errorCode: null, errorMessage: null,
    errorCategory: null, latencyMs: 5, ttftMs: null, overheadMs: 1, fallbacks: 0, workflowId: null, step: null, tags: [],
    stream: false, test: false, trace: null,
  };
}

const settlement = (requestId: string, charge: number) =>
  ({ requestId, model: "openai/gpt-4o-mini", charge, cost: charge - 10, inputTokens: 10, outputTokens: 20, byok: false, withRow: true });
const prepaid: Terms = { credit: "prepaid", creditLimit: 0, budgets: {}, action: "block", monthlyRequests: null };

describe("charges carried by the log row", () => {
  test("written with the row by the log writer; the balance counts them once before, during and after the commit", async () => {
    const { billing, requests, project, count } = fresh();
    const writer = new LogWriter(requests, { intervalMs: 1_000 });
    const r = row(project.id);
    const charge = billing.settle(project.id, undefined, settlement(r.id, 700))!;
    expect(billing.writer.pending).toBe(0);
    writer.enqueue(r, charge);
    expect(count("charge")).toBe(0);
    expect(billing.balance(project.id)).toBe(-700);
    expect(billing.pending.size).toBe(1);
    await writer.drain();
    expect(billing.pending.size).toBe(0);
    expect(count("charge")).toBe(1);
    expect(billing.balance(project.id)).toBe(-700);
  });

  test("committed by the worker but not yet confirmed: the ledger read finds it and does not count it twice", () => {
    const { billing, requests, repo, project } = fresh();
    const r = row(project.id);
    const charge = billing.settle(project.id, undefined, settlement(r.id, 900))!;
    // The worker's transaction has committed; its answer has not reached this thread yet.
    requests.insertPrepared([{ ...prepareRow(r), ledger: charge.entries }]);
    expect(billing.balance(project.id)).toBe(-900);
    expect(billing.account(project.id)).toMatchObject({ balance: -900, day: { spent: 900 }, month: { spent: 900, requests: 1 } });
    const invoice = invoiceFor(repo, project, monthKey(Date.now()), Date.now());
    expect(invoice.totals).toMatchObject({ requests: 1, charge: 0.0000009 });
    charge.committed();
    expect(billing.balance(project.id)).toBe(-900);
  });

  test("invoices include charges not committed yet, in their model's line", () => {
    const { billing, repo, project } = fresh();
    billing.settle(project.id, undefined, { ...settlement("req_written", 1_000), withRow: false });
    billing.writer.flush();
    billing.settle(project.id, undefined, settlement(newRequestId(), 2_000));
    billing.settle(project.id, undefined, { ...settlement(newRequestId(), 3_000), model: "anthropic/claude-haiku" });
    const invoice = invoiceFor(repo, project, monthKey(Date.now()), Date.now());
    expect(invoice.lines.map((l) => [l.model, l.requests, l.charge])).toEqual([["anthropic/claude-haiku", 1, 0.000003], ["openai/gpt-4o-mini", 2, 0.000003]]);
    expect(repo.activeMonths(project.id)).toEqual([monthKey(Date.now())]);
  });

  test("a hold still queued goes with its charge; a hold already written is closed by it", async () => {
    const { db, billing, requests, repo, project, count } = fresh();
    billing.credit(project.id, 1, null);
    const writer = new LogWriter(requests, { intervalMs: 1_000 });
    const first = row(project.id);
    const held = billing.reserve(project.id, first.id, prepaid, 5_000);
    if (!held.ok) throw new Error("refused");
    const charge = billing.settle(project.id, held.hold, { ...settlement(first.id, 4_000) })!;
    expect(charge.entries.map((e) => e.kind)).toEqual(["hold", "charge"]);
    expect(billing.writer.pending).toBe(0);
    writer.enqueue(first, charge);
    const second = row(project.id);
    const other = billing.reserve(project.id, second.id, prepaid, 5_000);
    if (!other.ok) throw new Error("refused");
    billing.writer.flush();
    expect(repo.openHoldCount()).toBe(1);
    const late = billing.settle(project.id, other.hold, settlement(second.id, 3_000))!;
    expect(late.entries.map((e) => e.kind)).toEqual(["charge"]);
    writer.enqueue(second, late);
    await writer.drain();
    expect(repo.openHoldCount()).toBe(0);
    expect([count("hold"), count("charge"), count("release")]).toEqual([2, 2, 0]);
    const kinds = db.query<{ kind: string; request_id: string }, []>("SELECT kind, request_id FROM ledger WHERE kind != 'credit' ORDER BY seq").all();
    expect(kinds.map((k) => `${k.kind}:${k.request_id === first.id ? 1 : 2}`)).toEqual(["hold:2", "hold:1", "charge:1", "charge:2"]);
    expect(billing.account(project.id)).toMatchObject({ balance: 1_000_000_000 - 7_000, reserved: 0 });
  });

  test("a row rejected by a constraint still has its charge written, once however often its batch is retried", () => {
    const { billing, requests, project, count } = fresh();
    const rows = Array.from({ length: 20 }, () => row(project.id));
    const prepared = rows.map((r) => ({ ...prepareRow(r), ledger: billing.settle(project.id, undefined, settlement(r.id, 10))!.entries }));
    prepared[3]!.values[4] = null; // created_at is NOT NULL
    expect(requests.insertPrepared(prepared)).toEqual([rows[3]!.id]);
    expect(requests.insertPrepared(prepared)).toEqual([rows[3]!.id]);
    expect(count("charge")).toBe(20);
  });

  test("a row that is dropped, or a failing batch, never loses its charge", async () => {
    const { billing, requests, project, count } = fresh();
    let failures = 2;
    const flaky = { insertBatch: (b: string) => (failures-- > 0 ? Promise.reject(new Error("SQLITE_FULL")) : requests.insertBatch(b)) };
    const writer = new LogWriter(flaky, { intervalMs: 1, maxRows: 1 });
    const kept = row(project.id);
    writer.enqueue(kept, billing.settle(project.id, undefined, settlement(kept.id, 100)));
    writer.enqueue(row(project.id), billing.settle(project.id, undefined, settlement(newRequestId(), 200)));
    // Past twice the bound: the row is dropped, its charge goes to the ledger writer.
    const dropped = row(project.id);
    writer.enqueue(dropped, billing.settle(project.id, undefined, settlement(dropped.id, 400)));
    expect(writer.dropped).toBe(1);
    expect(billing.balance(project.id)).toBe(-700);
    await writer.drain();
    await billing.drain();
    expect(count("charge")).toBe(3);
    expect(billing.pending.size).toBe(0);
    expect(billing.balance(project.id)).toBe(-700);
  });
});
