// Workflow budgets (`gw.workflow_budget`, docs/routing.md "Workflow budgets"): each attempt reserves
// its predicted upper-bound cost and settles to the actual, so concurrent steps cannot overspend;
// totals start from the request log, then live in memory ahead of its writes.
export interface Reservation {
  key: string;
  amount: number;
  open: boolean;
}

const MAX_WORKFLOWS = 50_000;
/** Multi-instance: how long what every instance logged for a workflow is taken as read. */
export const SHARED_READ_MS = 1_000;

type Totals = { spent: number; reserved: number; readAt: number; reading: Promise<void> | null };

export class WorkflowBudgets {
  private totals = new Map<string, Totals>();

  /** `loadSpent` reads what the request log already holds for a workflow (first use only).
   * Multi-instance: `readShared` reads what every instance logged (PostgreSQL), through prepare. */
  constructor(
    private readonly loadSpent: (projectId: string, workflowId: string) => number,
    private readonly readShared?: (projectId: string, workflowId: string) => Promise<number>,
    private readonly now: () => number = Date.now,
  ) {}

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
    t.reading = read(projectId, workflowId).then(
      (logged) => {
        t.spent = Math.max(t.spent, logged);
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

  /** Budget left for new attempts: budget - spent - reserved, never below zero. */
  remaining(projectId: string, workflowId: string, budget: number): number {
    const t = this.totalsOf(projectId, workflowId);
    return Math.max(0, budget - t.spent - t.reserved);
  }

  reserve(projectId: string, workflowId: string, amount: number): Reservation {
    const key = keyOf(projectId, workflowId);
    this.totalsOf(projectId, workflowId).reserved += amount;
    return { key, amount, open: true };
  }

  /** The attempt answered: its reservation becomes its actual cost. */
  settle(r: Reservation, actualCost: number): void {
    const t = this.release(r);
    if (t) t.spent += actualCost;
  }

  /** The attempt failed (or the request ended before metering): the reservation is given back. */
  release(r: Reservation): Totals | undefined {
    if (!r.open) return undefined;
    r.open = false;
    const t = this.totals.get(r.key);
    if (t) t.reserved = Math.max(0, t.reserved - r.amount);
    return t;
  }

  private totalsOf(projectId: string, workflowId: string): Totals {
    const key = keyOf(projectId, workflowId);
    let t = this.totals.get(key);
    if (!t) {
      if (this.totals.size >= MAX_WORKFLOWS) this.dropSettled();
      // Multi-instance: the shared read (prepare) fills it in; the instance's own log is empty.
      t = { spent: this.readShared ? 0 : this.loadSpent(projectId, workflowId), reserved: 0, readAt: -Infinity, reading: null };
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
