// Invoices from PostgreSQL's ledger (src/store/postgres/invoices.ts, docs/scale-out.md): the same
// ledger rows in SQLite and in PostgreSQL give the same invoice JSON, month by month, lines in the
// same order; months are found from the first to the last row without reading the project's rows.
import { afterAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { invoicesFor, sharedInvoiceEventsJob, sharedInvoicesFor } from "../../src/billing/invoices.ts";
import { InvoiceEvents } from "../../src/monitoring/events/invoice-events.ts";
import type { Postgres } from "../../src/store/postgres/connect.ts";
import { postgresInvoiceLedger } from "../../src/store/postgres/invoices.ts";
import { openDatabase } from "../../src/store/db.ts";
import { type LedgerEntry, ledgerRepo } from "../../src/store/repos/ledger.ts";
import type { Project } from "../../src/store/repos/projects.ts";
import { migratedPostgresForFile } from "../helpers/migrated-postgres.ts";

let pg: Postgres;
migratedPostgresForFile({ max: 2, timeoutMs: 10_000 }, (_s, p) => {
  pg = p;
});
const dir = mkdtempSync(join(tmpdir(), "gw-invoices-"));
const db: Database = openDatabase(dir);
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const project = (id: string): Project => ({ id, name: id, plan: "pro", billingMode: "prepaid", balance: 0, creditLimit: null, policy: {}, createdAt: 0 });

const at = (y: number, m: number, d: number, h = 12) => Date.UTC(y, m - 1, d, h);

/** One entry in both ledgers. */
async function both(e: LedgerEntry): Promise<void> {
  ledgerRepo(db).append(e);
  await pg.sql`INSERT INTO ledger (project_id, kind, amount, request_id, model, input_tokens, output_tokens, cost, saved, byok, note, created_at)
    VALUES (${e.projectId}, ${e.kind}, ${e.amount}, ${e.requestId ?? null}, ${e.model ?? null}, ${e.inputTokens ?? 0}, ${e.outputTokens ?? 0},
      ${e.cost ?? 0}, ${e.saved ?? 0}, ${e.byok ?? false}, ${e.note ?? null}, ${e.createdAt})`;
}

describe("invoices on PostgreSQL's ledger", () => {
  test("the same rows give the same invoices: lines per model (model-less first, bytewise order), credits, cache savings, open and closed months", async () => {
    const id = "prj_invoice_same";
    let n = 0;
    const charge = (model: string | null, when: number, amount: number, cost: number) =>
      both({ projectId: id, kind: "charge", amount, cost, model, requestId: `req_${++n}`, inputTokens: 100 + n, outputTokens: 20 + n, createdAt: when });
    await both({ projectId: id, kind: "credit", amount: 50_000_000_000, note: "admin api", createdAt: at(2026, 9, 1, 0) });
    await charge("openai/gpt-4o-mini", at(2026, 9, 3), 1_230_000, 1_000_000);
    await charge("Zeta/upper", at(2026, 9, 4), 2_000_000, 2_000_000);
    await charge(null, at(2026, 9, 5), 500, 400);
    await charge("openai/gpt-4o-mini", at(2026, 9, 30, 23), 777, 700);
    // Holds and releases are not on an invoice; nor is a row of another project.
    await both({ projectId: id, kind: "hold", amount: 9_000, requestId: "req_h", createdAt: at(2026, 9, 6) });
    await both({ projectId: id, kind: "release", amount: 9_000, requestId: "req_h", createdAt: at(2026, 9, 6) });
    await both({ projectId: "prj_invoice_other", kind: "charge", amount: 1, model: "x/y", requestId: "req_o", createdAt: at(2026, 9, 7) });
    // The first instant of October is October's.
    await charge("anthropic/claude-haiku-4-5", at(2026, 10, 1, 0), 3_000_000, 2_500_000);
    await both({ projectId: id, kind: "cache", amount: 0, saved: 40_000, requestId: "req_c", model: "openai/gpt-4o-mini", createdAt: at(2026, 10, 2) });
    // Nothing in November or December; January has a credit only.
    await both({ projectId: id, kind: "credit", amount: 1_000_000_000, createdAt: at(2027, 1, 15) });

    const now = at(2027, 1, 20);
    const ledger = postgresInvoiceLedger(pg);
    const p = project(id);
    const all = await sharedInvoicesFor(ledger, p, undefined, now);
    expect(all).toEqual(invoicesFor(ledgerRepo(db), p, undefined, now));
    expect(all.data.map((i) => i.month)).toEqual(["2027-01", "2026-10", "2026-09"]);
    expect(all.data[2]!.lines.map((l) => l.model)).toEqual([null, "Zeta/upper", "openai/gpt-4o-mini"]);
    expect(all.data[2]!.totals.requests).toBe(4);
    expect(all.data[0]!.status).toBe("open");
    for (const month of ["2026-09", "2026-11", "2027-01"]) {
      expect(await sharedInvoicesFor(ledger, p, month, now)).toEqual(invoicesFor(ledgerRepo(db), p, month, now));
    }
  });

  test("a project with no ledger rows lists only the current month, empty", async () => {
    const now = at(2026, 11, 26);
    const p = project("prj_invoice_none");
    const listed = await sharedInvoicesFor(postgresInvoiceLedger(pg), p, undefined, now);
    expect(listed).toEqual(invoicesFor(ledgerRepo(db), p, undefined, now));
    expect(listed.data.map((i) => [i.month, i.lines.length, i.totals.charge])).toEqual([["2026-11", 0, 0]]);
  });
});

describe("invoice.created from PostgreSQL's ledger (the leader's job)", () => {
  test("once the month has closed: one event per project with activity in it, as single-node's InvoiceEvents sends from the same rows; once per month", async () => {
    const busy = "prj_invoice_event_busy";
    const quiet = "prj_invoice_event_quiet";
    await both({ projectId: busy, kind: "charge", amount: 4_000_000, cost: 3_000_000, model: "openai/gpt-4o-mini", requestId: "req_e1", inputTokens: 10, outputTokens: 5, createdAt: at(2026, 10, 12) });
    await both({ projectId: busy, kind: "credit", amount: 10_000_000_000, createdAt: at(2026, 10, 2) });
    // Quiet in October (a November charge only): no event for October.
    await both({ projectId: quiet, kind: "charge", amount: 1_000, cost: 1_000, model: "openai/gpt-4o-mini", requestId: "req_e2", createdAt: at(2026, 11, 3) });
    const projects = () => [project(busy), project(quiet)];
    const now = at(2026, 11, 26);

    const sent: Array<{ projectId: string; type: string; key: string; data: Record<string, unknown> }> = [];
    const job = sharedInvoiceEventsJob(postgresInvoiceLedger(pg), projects, (e) => sent.push(e));
    await pg.sql.begin((tx) => job.run(tx, now));
    const single: typeof sent = [];
    new InvoiceEvents((e) => {
      single.push({ projectId: e.projectId, type: e.type, key: e.key, data: e.data });
      return null;
    }, { ledger: ledgerRepo(db), projects, flushLedger: () => undefined }).check(now);
    expect(sent).toEqual(single);
    expect(sent.map((e) => [e.projectId, e.type, e.key])).toEqual([[busy, "invoice.created", "2026-10"]]);
    expect(sent[0]!.data).toMatchObject({ month: "2026-10", status: "closed", totals: { requests: 1, charge: 0.004, credits: 10 } });
    // The same month is not looked at again by this leader.
    await pg.sql.begin((tx) => job.run(tx, now + 60_000));
    expect(sent).toHaveLength(1);
  });
});
