// Workflow budgets (`gw.workflow_budget`, docs/routing.md "Workflow budgets"): each attempt reserves
// its predicted upper-bound cost and settles to the actual, so concurrent steps cannot overspend;
// totals start from the request log, then live in memory ahead of its writes (or, multi-instance, in Redis).
import { randomUUID } from "node:crypto";
import { OutageLatch } from "../store/redis/redis-call.ts";
import type { WorkflowReservationStore } from "../store/redis/workflow-reservations.ts";

export interface Reservation {
  key: string;
  amount: number;
  open: boolean;
  /** Multi-instance: the attempt's field among every instance's reservations. */
  token?: Token;
}

/** A shared reservation: held by the route stage (holder null) until an attempt takes it. */
interface Token {
  /** Its field in Redis; "" for a hold made on this instance alone while Redis fails. */
  field: string;
  amount: number;
  holder: Reservation | null;
}

/** Multi-instance: the reservations every instance sees (src/store/redis/workflow-reservations.ts). */
export interface SharedReservations {
  store: WorkflowReservationStore;
  /** A reservation of an instance that died frees itself after this long (the request time-out and more). */
  ttlMs: number;
  onError: (err: unknown) => void;
}

const MAX_WORKFLOWS = 50_000;
/** Multi-instance: how long what every instance logged for a workflow is taken as read. */
export const SHARED_READ_MS = 1_000;
/** A settled cost is counted with the reservations by a reader whose log read began less than this
 * after it (its row commits a moment after the settle, and clocks differ a little). */
const SETTLE_MARGIN_MS = 500;
/** How long a settled cost stays among the reservations: past any log read it could be missing from. */
const SETTLED_KEEP_MS = SHARED_READ_MS + 2_500;

type Totals = {
  spent: number; reserved: number; readAt: number; reading: Promise<void> | null;
  /** Multi-instance: the log's cost at the last read (begun at readStartedAt), and every instance's
   * reservations and recent settled costs at the last answer from Redis (null: none yet). */
  logged: number; readStartedAt: number; shared: number | null; pending: Token[];
};

export class WorkflowBudgets {
  private totals = new Map<string, Totals>();

  /** `loadSpent` reads what the request log already holds for a workflow (first use only).
   * Multi-instance: `readShared` reads what every instance logged (PostgreSQL), through prepare. */
  constructor(
    private readonly loadSpent: (projectId: string, workflowId: string) => number,
    private readonly readShared?: (projectId: string, workflowId: string) => Promise<number>,
    private readonly now: () => number = Date.now,
    private readonly shared?: SharedReservations,
  ) {}

  private readonly latch = new OutageLatch();

  /** Multi-instance only: reads the workflow's cost logged by every instance, at most once per
   * SHARED_READ_MS, before `remaining` is asked; null when there is nothing to wait for (always in
   * single-node). Spent becomes the larger of that and this instance's own count, which is ahead
   * of the log by its rows not yet written. Reservations on other instances are not seen. */
  prepare(projectId: string, workflowId: string): Promise<void> | null {
    const read = this.readShared;
    if (!read) return null;
    const t = this.totalsOf(projectId, workflowId);
    if (t.reading) return t.reading;
    if (this.now() - t.readAt < SHARED_READ_MS) return null;
    const started = this.now();
    const total = this.sharedCall((store) => store.total(keyOf(projectId, workflowId), started, started - SETTLE_MARGIN_MS));
    t.reading = Promise.all([read(projectId, workflowId), total]).then(
      ([logged, shared]) => {
        t.spent = Math.max(t.spent, logged);
        t.logged = logged;
        t.readStartedAt = started;
        t.shared = shared;
        // From the read's end: asked again right after it (the route stage), it is fresh.
        t.readAt = this.now();
        t.reading = null;
      },
      (err: unknown) => {
        t.reading = null;
        throw err;
      },
    );
    return t.reading;
  }

  /** Budget left for new attempts: budget - spent - reserved, never below zero. Multi-instance with
   * Redis answering: the log's cost minus every instance's reservations and recent settled costs. */
  remaining(projectId: string, workflowId: string, budget: number): number {
    const t = this.totalsOf(projectId, workflowId);
    if (this.shared && t.shared !== null && !this.latch.isDown) return Math.max(0, budget - t.logged - t.shared);
    return Math.max(0, budget - t.spent - t.reserved);
  }

  /** Multi-instance, the route stage: holds `amount` (the first attempt's worst case) in Redis if
   * every instance's reservations leave room for it within `budget` - the log's cost, in one script
   * call. "refused": no room (the shared total is updated, so routing again sees what is left).
   * Redis not answering: the same check and hold on this instance's own reservations (each
   * instance then keeps single-node's rule alone); null without shared reservations. */
  async hold(projectId: string, workflowId: string, budget: number, amount: number): Promise<Reservation | "refused" | null> {
    if (!this.shared) return null;
    const t = this.totalsOf(projectId, workflowId);
    const key = keyOf(projectId, workflowId);
    const token: Token = { field: randomUUID(), amount, holder: null };
    const now = this.now();
    const ttl = this.shared.ttlMs;
    const res = await this.sharedCall((store) => store.reserve(key, token.field, amount, budget - t.logged, now, t.readStartedAt - SETTLE_MARGIN_MS, ttl));
    if (res === null) {
      if (amount > budget - t.spent - t.reserved + 1e-12) return "refused";
      token.field = "";
    } else {
      t.shared = res.total;
      if (!res.ok) return "refused";
    }
    t.reserved += amount;
    t.pending.push(token);
    return { key, amount, open: true, token };
  }

  /** An attempt's reservation. Multi-instance: it takes a hold the route stage made (the oldest:
   * holds of one workflow are interchangeable), else adds one to Redis without a check, as
   * single-node reserves a fallback. */
  reserve(projectId: string, workflowId: string, amount: number): Reservation {
    const key = keyOf(projectId, workflowId);
    const t = this.totalsOf(projectId, workflowId);
    t.reserved += amount;
    if (!this.shared) return { key, amount, open: true };
    const held = t.pending.shift();
    if (!held && this.latch.isDown) return { key, amount, open: true };
    const token = held ?? { field: randomUUID(), amount: 0, holder: null };
    if (held) t.reserved -= held.amount;
    const r: Reservation = { key, amount, open: true, token };
    token.holder = r;
    if (token.amount !== amount) {
      token.amount = amount;
      if (held?.field === "") return r;
      const now = this.now();
      void this.sharedCall((store) => store.reserve(key, token.field, amount, null, now, t.readStartedAt - SETTLE_MARGIN_MS, this.shared?.ttlMs ?? 0));
    }
    return r;
  }

  /** The attempt answered: its reservation becomes its actual cost. */
  settle(r: Reservation, actualCost: number): void {
    const token = r.token?.holder === r && r.token.field !== "" ? r.token : undefined;
    const t = this.release(r, token === undefined);
    if (!t) return;
    t.spent += actualCost;
    if (!token) return;
    const now = this.now();
    void this.sharedCall((store) => store.settle(r.key, token.field, actualCost, now, t.readStartedAt - SETTLE_MARGIN_MS, SETTLED_KEEP_MS)).then((total) => {
      if (total !== null) t.shared = total;
    });
  }

  /** The attempt failed (or the request ended before metering): the reservation is given back. */
  release(r: Reservation, shared = true): Totals | undefined {
    if (!r.open) return undefined;
    r.open = false;
    const t = this.totals.get(r.key);
    let token = r.token;
    let amount = r.amount;
    if (t && token && token.holder !== r) {
      // A route stage's hold no attempt took: given back; one another request's attempt took
      // (they are interchangeable): a hold still waiting is given back in its place.
      const waiting = token.holder === null ? t.pending.indexOf(token) : t.pending.length - 1;
      token = waiting >= 0 ? t.pending.splice(waiting, 1)[0] : undefined;
      amount = token?.amount ?? 0;
    }
    if (t) t.reserved = Math.max(0, t.reserved - amount);
    if (token && token.field !== "" && shared && t) {
      const field = token.field;
      void this.sharedCall((store) => store.release(r.key, field));
      if (t.shared !== null) t.shared = Math.max(0, t.shared - amount);
    }
    return t;
  }

  /** One Redis call of the shared reservations; null when there are none, or Redis failed (said once
   * per outage; while down, one call per 500 ms tries it again). */
  private async sharedCall<T>(run: (store: WorkflowReservationStore) => Promise<T>): Promise<T | null> {
    if (!this.shared || this.latch.skip()) return null;
    try {
      const out = await run(this.shared.store);
      this.latch.ok();
      return out;
    } catch (err) {
      if (this.latch.fail()) this.shared.onError(err);
      return null;
    }
  }

  private totalsOf(projectId: string, workflowId: string): Totals {
    const key = keyOf(projectId, workflowId);
    let t = this.totals.get(key);
    if (!t) {
      if (this.totals.size >= MAX_WORKFLOWS) this.dropSettled();
      // Multi-instance: the shared read (prepare) fills it in; the instance's own log is empty.
      t = { spent: this.readShared ? 0 : this.loadSpent(projectId, workflowId), reserved: 0, readAt: -Infinity, reading: null, logged: 0, readStartedAt: 0, shared: null, pending: [] };
      this.totals.set(key, t);
    }
    return t;
  }

  /** Forgets workflows with nothing in flight; they reload from the log when used again. */
  private dropSettled(): void {
    for (const [key, t] of this.totals) if (t.reserved === 0 && !t.reading) this.totals.delete(key);
  }
}

const keyOf = (projectId: string, workflowId: string): string => `${projectId}\u0000${workflowId}`;
