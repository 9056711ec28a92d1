// Charges carried by their request-log rows (migration 008, gw_write_log_settled): the row and its
// charge commit in one call and one transaction on a real cluster; retries charge nothing twice, a
// rejected row's charge is still written, and batches settling several projects at once never deadlock.
import { describe, expect, test } from "bun:test";
import { prepareRow, type PreparedRow } from "../../../src/store/log-batch-codec.ts";
import { openPostgres, type Postgres } from "../../../src/store/postgres/connect.ts";
import { postgresMoneyStore } from "../../../src/store/postgres/money.ts";
import { postgresLogStore, type CarriedSettle, type SettleDiffers } from "../../../src/store/postgres/request-log.ts";
import type { PostgresService } from "../../helpers/services.ts";
import { migratedPostgresForFile } from "../../helpers/migrated-postgres.ts";
import { project, record, T0 } from "../contract/request-log.contract.ts";

let service: PostgresService;
let pg: Postgres;
migratedPostgresForFile({ max: 10, timeoutMs: 20_000 }, (s, p) => {
  service = s;
  pg = p;
});

const DAY = "2026-11-26";

/** A charge of `amount` nano-USD for the request, as billing/shared-holds.ts hands it to the row. */
const charge = (projectId: string, requestId: string, amount: number, allowance: number | null = 0): CarriedSettle => ({
  projectId, kind: "charge", amount, requestId, model: "openai/gpt-4o-mini", inputTokens: 10, outputTokens: 20, cost: amount,
  saved: 0, byok: false, createdAt: T0, allowance, periods: [{ period: "daily", key: DAY }, { period: "monthly", key: "2026-11" }],
});

/** A log row of `projectId` carrying `amount` (after a hold of `held`, when given). */
async function held(projectId: string, amount: number, hold: number | null): Promise<PreparedRow> {
  const row = prepareRow(record(projectId, T0));
  if (hold !== null) {
    const r = await postgresMoneyStore(pg).reserve({ projectId, requestId: row.id, amount: hold, allowance: 0, now: T0 });
    expect(r.ok).toBe(true);
  }
  return { ...row, ledger: [charge(projectId, row.id, amount)] };
}

async function ledger(projectId: string): Promise<Array<{ kind: string; request_id: string | null; amount: number }>> {
  const rows: Array<{ kind: string; request_id: string | null; amount: string }> =
    await pg.sql`SELECT kind, request_id, amount FROM ledger WHERE project_id = ${projectId} ORDER BY seq`;
  return rows.map((r) => ({ kind: r.kind, request_id: r.request_id, amount: Number(r.amount) }));
}

const logged = async (projectId: string): Promise<number> =>
  Number((await pg.sql`SELECT count(*)::int AS n FROM requests WHERE project_id = ${projectId}`)[0]?.n ?? 0);

describe("postgres: charges carried by their log rows", () => {
  test("a row and the charge it carries are written by one call: the hold becomes the charge, budgets count it", async () => {
    const p = project("carried");
    const money = postgresMoneyStore(pg);
    await money.credit(p, 10_000, "test", T0);
    const row = await held(p, 800, 1_000);
    expect(await postgresLogStore(pg).writeBatch([row])).toEqual([]);
    expect((await ledger(p)).map((r) => [r.kind, r.amount])).toEqual([["credit", 10_000], ["hold", 1_000], ["charge", 800]]);
    expect(await money.figures(p)).toEqual({ balance: 9_200, reserved: 0 });
    const [open] = await pg.sql`SELECT count(*)::int AS n FROM ledger_open_holds WHERE project_id = ${p}`;
    expect(open?.n).toBe(0);
    const [day] = await pg.sql`SELECT spent, requests FROM spend_counters WHERE project_id = ${p} AND period = 'daily' AND period_key = ${DAY}`;
    expect([Number(day?.spent), Number(day?.requests)]).toEqual([800, 1]);
  });

  test("all or nothing: a batch failing on the server writes neither its rows nor their charges; retried, both land once", async () => {
    const p = project("atomic");
    const money = postgresMoneyStore(pg);
    await money.credit(p, 10_000, "test", T0);
    const rows = [await held(p, 400, 1_000), await held(p, 600, 1_000)];
    // A trigger's own exception (SQLSTATE P0001) on the second row: the server failing mid-batch.
    await pg.sql.unsafe(`CREATE OR REPLACE FUNCTION gw_test_fail() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.id = '${rows[1]!.id}' THEN RAISE EXCEPTION 'failed row'; END IF; RETURN NEW; END $$`);
    await pg.sql.unsafe("CREATE TRIGGER gw_test_fail BEFORE INSERT ON requests FOR EACH ROW EXECUTE FUNCTION gw_test_fail()");
    try {
      await expect(postgresLogStore(pg).writeBatch(rows)).rejects.toThrow(/failed row/);
    } finally {
      await pg.sql.unsafe("DROP TRIGGER gw_test_fail ON requests");
    }
    expect(await logged(p)).toBe(0);
    expect((await ledger(p)).map((r) => r.kind)).toEqual(["credit", "hold", "hold"]);
    expect(await money.figures(p)).toEqual({ balance: 10_000, reserved: 2_000 });
    expect(await postgresLogStore(pg).writeBatch(rows)).toEqual([]);
    expect(await logged(p)).toBe(2);
    expect(await money.figures(p)).toEqual({ balance: 9_000, reserved: 0 });
  });

  test("a retried batch charges nothing twice, also mixed with new rows (the call made again with each row's counts)", async () => {
    const p = project("retried");
    const money = postgresMoneyStore(pg);
    await money.credit(p, 10_000, "test", T0);
    const store = postgresLogStore(pg);
    const first = await held(p, 500, 1_000);
    await store.writeBatch([first]);
    await store.writeBatch([first]);
    const second = await held(p, 700, 1_000);
    await store.writeBatch([first, second]);
    expect((await ledger(p)).filter((r) => r.kind === "charge").map((r) => [r.request_id, r.amount])).toEqual([[first.id, 500], [second.id, 700]]);
    expect(await money.figures(p)).toEqual({ balance: 8_800, reserved: 0 });
    expect(await logged(p)).toBe(2);
  });

  test("a charge whose hold was closed before is reported and not charged; the row is written", async () => {
    const p = project("closed");
    const money = postgresMoneyStore(pg);
    await money.credit(p, 10_000, "test", T0);
    const odd: SettleDiffers[] = [];
    const row = await held(p, 900, 1_000);
    expect(await money.release(p, row.id, T0)).toBe(true);
    expect(await postgresLogStore(pg, { onSettleDiffers: (o) => odd.push(...o) }).writeBatch([row])).toEqual([]);
    expect(odd).toEqual([{ request_id: row.id, charge: 900, charged: null }]);
    expect(await money.figures(p)).toEqual({ balance: 10_000, reserved: 0 });
    expect(await logged(p)).toBe(1);
  });

  test("cache answers: one that held nothing writes its ledger row only, once; one marked held is settled in full", async () => {
    const p = project("cached");
    const money = postgresMoneyStore(pg);
    await money.credit(p, 10_000, "test", T0);
    const odd: SettleDiffers[] = [];
    const store = postgresLogStore(pg, { onSettleDiffers: (o) => odd.push(...o) });
    const hit = (row: PreparedRow, held: boolean): PreparedRow => {
      const entry: CarriedSettle = { ...charge(p, row.id, 0, null), kind: "cache", saved: 300, held };
      return { ...row, ledger: [entry] };
    };
    const plain = hit(prepareRow(record(p, T0)), false);
    // A hold on a cache answer cannot happen on the request path; were one open, it is closed as gw_settle closes it.
    const holding = hit(await held(p, 0, 1_000), true);
    expect(await store.writeBatch([plain, holding])).toEqual([]);
    const rows: Array<{ kind: string; request_id: string; amount: string; saved: string }> =
      await pg.sql`SELECT kind, request_id, amount, saved FROM ledger WHERE project_id = ${p} AND kind = 'cache' ORDER BY request_id`;
    const byId = (a: unknown[], b: unknown[]) => (String(a[0]) < String(b[0]) ? -1 : 1);
    expect(rows.map((r) => [r.request_id, Number(r.amount), Number(r.saved)])).toEqual([[plain.id, 0, 300], [holding.id, 0, 300]].sort(byId));
    expect(await money.figures(p)).toEqual({ balance: 10_000, reserved: 0 });
    const [day] = await pg.sql`SELECT count(*)::int AS n, coalesce(sum(spent), 0)::int AS spent, coalesce(sum(requests), 0)::int AS requests,
      coalesce(sum(reserved), 0)::int AS reserved FROM spend_counters WHERE project_id = ${p}`;
    expect([Number(day?.spent), Number(day?.requests), Number(day?.reserved)]).toEqual([0, 0, 0]);
    expect(odd).toEqual([]);
    // Written again (a retried batch): nothing changes, and the settle is told as gw_settle tells it.
    expect(await store.writeBatch([plain])).toEqual([]);
    expect(odd).toEqual([{ request_id: plain.id, charge: 0, charged: null }]);
    const [n] = await pg.sql`SELECT count(*)::int AS n FROM ledger WHERE project_id = ${p} AND kind = 'cache'`;
    expect(n?.n).toBe(2);
  });

  test("a row that breaks a constraint is rejected; its charge and the other rows' are still written", async () => {
    const p = project("rejected");
    const money = postgresMoneyStore(pg);
    await money.credit(p, 10_000, "test", T0);
    const rows = [await held(p, 100, 1_000), await held(p, 200, 1_000), await held(p, 300, 1_000)];
    const bad = rows[1]!.id;
    await pg.sql.unsafe(`CREATE OR REPLACE FUNCTION gw_test_reject() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.id = '${bad}' THEN RAISE EXCEPTION 'rejected row' USING ERRCODE = '23514'; END IF; RETURN NEW; END $$`);
    await pg.sql.unsafe("CREATE TRIGGER gw_test_reject BEFORE INSERT ON requests FOR EACH ROW EXECUTE FUNCTION gw_test_reject()");
    try {
      expect(await postgresLogStore(pg).writeBatch(rows)).toEqual([bad]);
    } finally {
      await pg.sql.unsafe("DROP TRIGGER gw_test_reject ON requests");
    }
    expect(await logged(p)).toBe(2);
    expect((await ledger(p)).filter((r) => r.kind === "charge").map((r) => r.amount).sort()).toEqual([100, 200, 300]);
    expect(await money.figures(p)).toEqual({ balance: 9_400, reserved: 0 });
  });

  test("three pools writing batches that settle the same projects in different orders: no deadlock, every charge once", async () => {
    const pools = [pg, openPostgres(service.url, { max: 4, timeoutMs: 20_000 }), openPostgres(service.url, { max: 4, timeoutMs: 20_000 })];
    try {
      const names = [project("lockA"), project("lockB"), project("lockC")];
      const money = postgresMoneyStore(pg);
      for (const p of names) await money.credit(p, 1_000_000, "test", T0);
      const batches: PreparedRow[][] = [];
      for (let b = 0; b < 30; b++) {
        const order = b % 2 ? [...names].reverse() : names;
        const batch: PreparedRow[] = [];
        for (const p of order) batch.push(await held(p, 10, 20), await held(p, 10, 20));
        batches.push(batch);
      }
      // Each batch written by two pools at once: the later copy finds its rows and charges taken.
      await Promise.all(batches.flatMap((batch, i) => [pools[i % 3]!, pools[(i + 1) % 3]!].map((pool) => postgresLogStore(pool).writeBatch(batch))));
      for (const p of names) {
        expect(await money.figures(p)).toEqual({ balance: 1_000_000 - 30 * 2 * 10, reserved: 0 });
        expect((await ledger(p)).filter((r) => r.kind === "charge").length).toBe(60);
        expect(await logged(p)).toBe(60);
      }
    } finally {
      await Promise.all(pools.slice(1).map((p) => p.close()));
    }
  });
});
