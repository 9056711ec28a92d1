// The money path on PostgreSQL (docs/scale-out.md "PostgreSQL"): a reservation is one conditional
// UPDATE of the account row; settle and release change it in the transaction that writes their
// ledger row, and the ledger's unique indexes make each happen once per request id.
import type { SQL, TransactionSQL } from "bun";
import type { MoneyFigures, MoneyStore, Reserved, ReserveAsk, Settled, SettleAsk } from "../money-store.ts";
import { bounded, type Postgres } from "./connect.ts";
import { applyCounters, changeOf, type CounterChange, counterName, parseCounterName } from "./spend-counters.ts";

/** Thrown inside a transaction to roll it back: the request id had done this step already. */
class Replay extends Error {}

/** Thrown inside a reservation to roll it back: the credit, a budget or the plan refuses it. */
class Refused extends Error {
  constructor(readonly refusal: Reserved & { ok: false }) {
    super(refusal.code);
  }
}

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

/** What closing a hold gives back to its counters, and (settle) what the charge adds to today's. */
function closeChanges(hold: { amount?: unknown; budget_keys?: unknown; slot_key?: unknown } | undefined, s?: { charge: number; counted: boolean; periods: SettleAsk["periods"] }): Map<string, CounterChange> {
  const changes = new Map<string, CounterChange>();
  const keys: unknown[] = Array.isArray(hold?.budget_keys) ? hold.budget_keys : [];
  for (const name of keys) {
    const k = typeof name === "string" ? parseCounterName(name) : null;
    if (k) changeOf(changes, k.period, k.key).reserved -= num(hold?.amount);
  }
  if (typeof hold?.slot_key === "string") changeOf(changes, "monthly", hold.slot_key).inflight -= 1;
  for (const p of s?.periods ?? []) {
    const c = changeOf(changes, p.period, p.key);
    c.spent += s?.charge ?? 0;
    if (s?.counted) c.requests += 1;
  }
  return changes;
}

const num = (v: unknown): number => Number(v ?? 0);

async function figuresIn(q: SQL, projectId: string): Promise<MoneyFigures> {
  const [row] = await q`SELECT balance, reserved FROM accounts WHERE project_id = ${projectId}`;
  return { balance: num(row?.balance), reserved: num(row?.reserved) };
}

/** The ledger row of a step; null when the request id already has one of its kind (unique index). */
async function ledgerRow(tx: TransactionSQL, e: { projectId: string; kind: string; amount: number; requestId: string; now: number; s?: SettleAsk }): Promise<boolean> {
  const s = e.s;
  const rows = await tx`INSERT INTO ledger (project_id, kind, amount, request_id, model, input_tokens, output_tokens, cost, saved, byok, created_at)
    VALUES (${e.projectId}, ${e.kind}, ${e.amount}, ${e.requestId}, ${s?.model ?? null}, ${s?.inputTokens ?? 0}, ${s?.outputTokens ?? 0},
      ${s?.cost ?? 0}, ${s?.cacheSaved ?? 0}, ${s?.byok ?? false}, ${e.now})
    ON CONFLICT DO NOTHING RETURNING seq`;
  return rows.length > 0;
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
  const replayed = (err: unknown) => {
    if (err instanceof Replay) return null;
    throw err;
  };

  // Every step locks the account row first, then its counters in name order: never a deadlock.
  const reserve = (a: ReserveAsk) => sql.begin(async (tx): Promise<Reserved> => {
    // The hold's row first: a concurrent replay waits on its unique index, then finds it taken.
    if (!(await ledgerRow(tx, { projectId: a.projectId, kind: "hold", amount: a.amount, requestId: a.requestId, now: a.now }))) throw new Replay();
    // A project with nothing credited yet has no row: one may still reserve against a credit limit.
    if (a.allowance !== 0 || a.amount === 0) await tx`INSERT INTO accounts (project_id) VALUES (${a.projectId}) ON CONFLICT DO NOTHING`;
    // The one conditional UPDATE: concurrent reservations queue on the row and each sees the last.
    const held = await tx`UPDATE accounts SET reserved = reserved + ${a.amount}
      WHERE project_id = ${a.projectId} AND (${a.allowance}::bigint IS NULL OR balance + ${a.allowance}::bigint - reserved >= ${a.amount})
      RETURNING balance`;
    if (held.length === 0) throw new Refused({ ok: false, code: "insufficient_credits", ...(await figuresIn(tx, a.projectId)) });
    const refusal = await applyCounters(tx, a.projectId, reserveChanges(a));
    if (refusal) throw new Refused(refusal);
    const budgetKeys = (a.budgets ?? []).map((b) => counterName(b.period, b.key));
    await tx`INSERT INTO ledger_open_holds (project_id, request_id, amount, budget_keys, slot_key, created_at)
      VALUES (${a.projectId}, ${a.requestId}, ${a.amount}, ${sql.array(budgetKeys, "TEXT")}, ${a.plan?.key ?? null}, ${a.now})`;
    return { ok: true, replayed: false };
  });

  const settle = (s: SettleAsk) => sql.begin(async (tx): Promise<Settled> => {
    // Deleting the open hold locks it: a concurrent settle of the same request waits, then finds none.
    const [hold] = await tx`DELETE FROM ledger_open_holds WHERE project_id = ${s.projectId} AND request_id = ${s.requestId}
      RETURNING amount, budget_keys, slot_key`;
    const held = num(hold?.amount);
    const cache = s.cacheSaved !== undefined;
    let charge = cache ? 0 : s.charge;
    if (s.allowance !== null && charge > 0) {
      const [a] = await tx`SELECT balance, reserved FROM accounts WHERE project_id = ${s.projectId} FOR UPDATE`;
      // Never past what the hold and the unreserved credit cover (docs/billing.md "Never overspent under concurrency").
      charge = Math.min(charge, Math.max(0, num(a?.balance) + s.allowance - num(a?.reserved) + held));
    }
    if (!(await ledgerRow(tx, { projectId: s.projectId, kind: cache ? "cache" : "charge", amount: charge, requestId: s.requestId, now: s.now, s }))) throw new Replay();
    await tx`INSERT INTO accounts (project_id, balance, reserved) VALUES (${s.projectId}, ${-charge}, 0)
      ON CONFLICT (project_id) DO UPDATE SET balance = accounts.balance - ${charge}, reserved = accounts.reserved - ${held}`;
    await applyCounters(tx, s.projectId, closeChanges(hold, { charge, counted: !cache, periods: s.periods }));
    return { ok: true, charged: charge };
  });

  const release = (projectId: string, requestId: string, now: number) => sql.begin(async (tx): Promise<boolean> => {
    const [hold] = await tx`DELETE FROM ledger_open_holds WHERE project_id = ${projectId} AND request_id = ${requestId}
      RETURNING amount, budget_keys, slot_key`;
    if (!hold) return false;
    const amount = num(hold.amount);
    if (!(await ledgerRow(tx, { projectId, kind: "release", amount, requestId, now }))) throw new Replay();
    await tx`UPDATE accounts SET reserved = reserved - ${amount} WHERE project_id = ${projectId}`;
    await applyCounters(tx, projectId, closeChanges(hold));
    return true;
  });

  const store: PostgresMoneyStore = {
    credit: (projectId, amount, note, now) => bounded(pg, "credit", () => sql.begin(async (tx) => {
      await tx`INSERT INTO ledger (project_id, kind, amount, note, created_at) VALUES (${projectId}, 'credit', ${amount}, ${note}, ${now})`;
      const [row] = await tx`INSERT INTO accounts (project_id, balance) VALUES (${projectId}, ${amount})
        ON CONFLICT (project_id) DO UPDATE SET balance = accounts.balance + excluded.balance RETURNING balance`;
      return num(row?.balance);
    })),
    reserve: (a) => bounded(pg, "reserve", () => reserve(a).catch((err: unknown): Reserved | null => {
      if (err instanceof Refused) return err.refusal;
      return replayed(err);
    })).then((r) => r ?? { ok: true, replayed: true }),
    settle: (s) => bounded(pg, "settle", () => settle(s).catch(replayed)).then((r) => r ?? { ok: false }),
    release: (projectId, requestId, now) => bounded(pg, "release", () => release(projectId, requestId, now).catch(replayed)).then((r) => r ?? false),
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
