// A request's money behind one interface (docs/scale-out.md "PostgreSQL"): reserve, then settle or
// release, each once per request id. src/billing/money-sqlite.ts is the single-node one (today's accounts
// and SQLite ledger); src/store/postgres/money.ts the shared one. Amounts in integer nano-USD.

export interface ReserveAsk {
  projectId: string;
  requestId: string;
  amount: number;
  /** What may be reserved past the balance: 0 prepaid, the credit limit on postpaid; null when no
   * credit is checked (the hold is still recorded). */
  allowance: number | null;
  /** budget_action `block` budgets: spent + reserved + amount may not pass `limit` in the period. */
  budgets?: BudgetAsk[];
  /** The plan's monthly allowance: answered requests + places held may not reach `limit`. */
  plan?: { key: string; limit: number };
  now: number;
}

export type Period = "daily" | "monthly";

/** `key`: the UTC period holding the ask's `now` ("2026-11-26", "2026-11"; billing/periods.ts). */
export interface PeriodKey {
  period: Period;
  key: string;
}

export interface BudgetAsk extends PeriodKey {
  limit: number;
}

export type Reserved =
  | { ok: true; /** This request id already held (or closed) its reservation: nothing changed. */ replayed: boolean }
  | { ok: false; code: "insufficient_credits"; balance: number; reserved: number }
  | { ok: false; code: "budget_exceeded"; period: Period; spent: number; reserved: number }
  | { ok: false; code: "plan_limit" };

export interface SettleAsk {
  projectId: string;
  requestId: string;
  /** The charge meter computed; cut to what the hold and the unreserved credit cover. */
  charge: number;
  allowance: number | null;
  model: string | null;
  inputTokens: number;
  outputTokens: number;
  /** Model cost before markup. */
  cost: number;
  byok: boolean;
  /** An answer from gw's cache: a `cache` row with its saving, charged nothing. */
  cacheSaved?: number;
  /** The periods of `now` the project counts spending in (budgets, plan): the charge is added to
   * their spent, and an answer that is not from the cache to their requests. */
  periods?: PeriodKey[];
  now: number;
}

/** ok false: the request was settled or released before (a replay); nothing changed. */
export type Settled = { ok: true; charged: number } | { ok: false };

export interface MoneyFigures {
  balance: number;
  reserved: number;
}

export interface MoneyStore {
  /** Adds credit, written before it resolves; returns the balance after it. */
  credit(projectId: string, amount: number, note: string | null, now: number): Promise<number>;
  reserve(ask: ReserveAsk): Promise<Reserved>;
  /** The charge and its ledger row replace the hold, in one step. */
  settle(ask: SettleAsk): Promise<Settled>;
  /** Gives the whole hold back; false when nothing was open (a replay, or never held). */
  release(projectId: string, requestId: string, now: number): Promise<boolean>;
  figures(projectId: string): Promise<MoneyFigures>;
}
