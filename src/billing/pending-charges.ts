// Request charges handed to the log writer with their rows (docs/billing.md "The ledger"): in
// memory until the log worker commits them, so balances, budgets and the plan's count read from
// the ledger still include them.
import type { QueuedCharge } from "../store/log-writer.ts";
import type { LedgerEntry } from "../store/repos/ledger.ts";
import type { UncommittedLedger } from "../store/repos/ledger-uncommitted.ts";

/** One request's entries (its charge, and its hold when that was not written yet). */
export class PendingCharge implements QueuedCharge {
  constructor(
    private readonly owner: PendingCharges,
    readonly entries: LedgerEntry[],
    /** The settle entry: a `charge` counts in the sums, a `cache` row does not. */
    readonly charge: LedgerEntry,
  ) {}

  committed(): void {
    this.owner.remove(this);
  }

  /** Its row was not queued (dropped, or the record stage failed): written on its own instead. */
  notCarried(): void {
    this.owner.alone(this);
  }
}

export class PendingCharges implements UncommittedLedger {
  private readonly byProject = new Map<string, Set<PendingCharge>>();
  private count = 0;
  private waiters: Array<() => void> = [];
  private draining: Promise<void> | null = null;

  /** `alone` writes a charge whose row could not carry it (the ledger writer's queue). */
  constructor(private readonly writeAlone: (entries: LedgerEntry[]) => void) {}

  get size(): number {
    return this.count;
  }

  add(c: PendingCharge): void {
    const set = this.byProject.get(c.charge.projectId);
    if (set) set.add(c);
    // Not new Set([c]): the iterable constructor costs more than the add (a set per idle project).
    else this.byProject.set(c.charge.projectId, new Set<PendingCharge>().add(c));
    this.count++;
  }

  remove(c: PendingCharge): void {
    const set = this.byProject.get(c.charge.projectId);
    if (!set?.delete(c)) return;
    if (set.size === 0) this.byProject.delete(c.charge.projectId);
    if (--this.count > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    this.draining = null;
    for (const w of waiters) w();
  }

  alone(c: PendingCharge): void {
    // Queued before it leaves the pending set: an account read flushes that queue first.
    this.writeAlone(c.entries);
    this.remove(c);
  }

  /** The project's pending settle entries (the ledger's reads add those not yet in the table). */
  of(projectId: string): LedgerEntry[] | null {
    const set = this.byProject.get(projectId);
    if (!set) return null;
    const out: LedgerEntry[] = [];
    for (const c of set) out.push(c.charge);
    return out;
  }

  /** Resolves once every charge pending now or later is committed. */
  drain(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    // One promise for every caller while the log is stuck: callers that give up leave nothing.
    return (this.draining ??= new Promise((resolve) => this.waiters.push(resolve)));
  }
}
