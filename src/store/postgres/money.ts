// The money path on PostgreSQL (docs/scale-out.md "PostgreSQL"): a reservation is one conditional
// UPDATE of the account row; settle and release change it in the statement that writes their
// ledger row, and the ledger's unique indexes make each happen once per request id. Each step is
// one round trip: a SELECT of its function (migration 006_money_functions), its own transaction.
import type { SQL } from "bun";
import type { MoneyFigures, MoneyStore, Reserved, ReserveAsk, Settled, SettleAsk } from "../money-store.ts";
import { bounded, type Postgres } from "./connect.ts";
import { changeOf, type CounterChange, counterChanges, counterName } from "./spend-counters.ts";

/** What a reservation adds to the project's counters: its amount to each `block` budget's reserved,
 * a held place to the plan's month. */
function reserveChanges(a: ReserveAsk): Map<string, CounterChange> {
  const changes = new Map<string, CounterChange>();
  for (const b of a.budgets ?? []) {
    const c = changeOf(changes, b.period, b.key);
    c.reserved += a.amount;
    c.budget = b.limit;
  }
  if (a.plan) {
    const c = changeOf(changes, "monthly", a.plan.key);
    c.inflight += 1;
    c.plan = a.plan.limit;
  }
  return changes;
}

const num = (v: unknown): number => Number(v ?? 0);

async function figuresIn(q: SQL, projectId: string): Promise<MoneyFigures> {
  const [row] = await q`SELECT balance, reserved FROM accounts WHERE project_id = ${projectId}`;
  return { balance: num(row?.balance), reserved: num(row?.reserved) };
}

/** gw_reserve's answer (jsonb, parsed by the client) as a Reserved. */
function reservedOf(answer: unknown): Reserved {
  const r = new Map(Object.entries(typeof answer === "object" && answer !== null ? answer : {}));
  if (r.get("ok") === true) return { ok: true, replayed: r.get("replayed") === true };
  if (r.get("code") === "plan_limit") return { ok: false, code: "plan_limit" };
  if (r.get("code") === "budget_exceeded") {
    return { ok: false, code: "budget_exceeded", period: r.get("period") === "monthly" ? "monthly" : "daily", spent: num(r.get("spent")), reserved: num(r.get("reserved")) };
  }
  return { ok: false, code: "insufficient_credits", balance: num(r.get("balance")), reserved: num(r.get("reserved")) };
}

export interface PostgresMoneyStore extends MoneyStore {
  /** Releases up to `limit` holds opened before `before`: their instance died, or their request
   * outlived any answer (a leader's job; single-node gw releases every open hold at start instead).
   * A request still running past it is then not charged: its settle finds no hold and changes
   * nothing. Returns how many were released. */
  releaseStale(before: number, now: number, limit?: number): Promise<number>;
}

export function postgresMoneyStore(pg: Postgres): PostgresMoneyStore {
  const { sql } = pg;

  // Every step locks the account row first, then its counters in name order: never a deadlock.
  // Parameters are cast: the functions are found by their argument types; JSON goes as text.
  const reserve = async (a: ReserveAsk): Promise<Reserved> => {
    const budgetKeys = (a.budgets ?? []).map((b) => counterName(b.period, b.key));
    const [row] = await sql`SELECT gw_reserve(${a.projectId}::text, ${a.requestId}::text, ${a.amount}::bigint, ${a.allowance}::bigint,
      ${counterChanges(reserveChanges(a))}::text::jsonb, ${sql.array(budgetKeys, "TEXT")}::text[], ${a.plan?.key ?? null}::text, ${a.now}::bigint) AS r`;
    return reservedOf(row?.r);
  };

  const settle = async (s: SettleAsk): Promise<Settled> => {
    const [row] = await sql`SELECT gw_settle(${s.projectId}::text, ${s.requestId}::text, ${s.charge}::bigint, ${s.allowance}::bigint,
      ${s.cacheSaved ?? null}::bigint, ${s.model ?? null}::text, ${s.inputTokens ?? 0}::bigint, ${s.outputTokens ?? 0}::bigint,
      ${s.cost ?? 0}::bigint, ${s.byok ?? false}::boolean, ${JSON.stringify(s.periods ?? [])}::text::jsonb, ${s.now}::bigint) AS charged`;
    // NULL: the request id was settled or released before.
    const charged: unknown = row?.charged;
    return charged === null || charged === undefined ? { ok: false } : { ok: true, charged: num(charged) };
  };

  const release = async (projectId: string, requestId: string, now: number): Promise<boolean> => {
    const [row] = await sql`SELECT gw_release(${projectId}::text, ${requestId}::text, ${now}::bigint) AS released`;
    return row?.released === true;
  };

  const store: PostgresMoneyStore = {
    credit: (projectId, amount, note, now) => bounded(pg, "credit", async () => {
      const [row] = await sql`SELECT gw_credit(${projectId}::text, ${amount}::bigint, ${note}::text, ${now}::bigint) AS balance`;
      return num(row?.balance);
    }),
    reserve: (a) => bounded(pg, "reserve", () => reserve(a)),
    settle: (s) => bounded(pg, "settle", () => settle(s)),
    release: (projectId, requestId, now) => bounded(pg, "release", () => release(projectId, requestId, now)),
    figures: (projectId) => bounded(pg, "figures", () => figuresIn(sql, projectId)),
    async releaseStale(before, now, limit = 500) {
      const rows: Array<{ project_id: string; request_id: string }> = await bounded(pg, "stale holds",
        () => sql`SELECT project_id, request_id FROM ledger_open_holds WHERE created_at < ${before} ORDER BY created_at LIMIT ${limit}`);
      let released = 0;
      // One transaction each, as any release: a hold settled meanwhile is simply not released.
      for (const r of rows) if (await store.release(r.project_id, r.request_id, now)) released++;
      return released;
    },
  };
  return store;
}
