// Workflow budgets (`gw.workflow_budget`, docs/routing.md "Workflow budgets"): each attempt reserves
// its predicted upper-bound cost and settles to the actual, so concurrent steps cannot overspend;
// totals start from the request log, then live in memory ahead of its writes.
export interface Reservation {
  key: string;
  amount: number;
  open: boolean;
}

const MAX_WORKFLOWS = 50_000;

export class WorkflowBudgets {
  private totals = new Map<string, { spent: number; reserved: number }>();

  /** `loadSpent` reads what the request log already holds for a workflow (first use only). */
  constructor(private readonly loadSpent: (projectId: string, workflowId: string) => number) {}

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
  release(r: Reservation): { spent: number; reserved: number } | undefined {
    if (!r.open) return undefined;
    r.open = false;
    const t = this.totals.get(r.key);
    if (t) t.reserved = Math.max(0, t.reserved - r.amount);
    return t;
  }

  private totalsOf(projectId: string, workflowId: string): { spent: number; reserved: number } {
    const key = keyOf(projectId, workflowId);
    let t = this.totals.get(key);
    if (!t) {
      if (this.totals.size >= MAX_WORKFLOWS) this.dropSettled();
      t = { spent: this.loadSpent(projectId, workflowId), reserved: 0 };
      this.totals.set(key, t);
    }
    return t;
  }

  /** Forgets workflows with nothing in flight; they reload from the log when used again. */
  private dropSettled(): void {
    for (const [key, t] of this.totals) if (t.reserved === 0) this.totals.delete(key);
  }
}

const keyOf = (projectId: string, workflowId: string): string => `${projectId}\u0000${workflowId}`;
