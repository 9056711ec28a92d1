// The billing service (docs/billing.md): in-memory accounts in front of the append-only ledger.
// reserve -> (call) -> settle | release, each a synchronous step on one account; ledger rows for
// them are queued (ledger-writer.ts, or with the log row). Credits are written at once.
import { systemClock, type Clock } from "../lib/clock.ts";
import type { LedgerEntry, LedgerRepo } from "../store/repos/ledger.ts";
import { Account, type Admission, type Hold, type Terms } from "./account.ts";
import { LedgerWriter, type LedgerWriterOptions } from "./ledger-writer.ts";
import { toNano } from "./money.ts";
import { PendingCharge, PendingCharges } from "./pending-charges.ts";
import { dayStart, monthStart } from "./periods.ts";
import type { BillingSignals, TopUp } from "./signals.ts";

/** What an answered request leaves in the ledger (meter). */
export interface Settlement {
  requestId: string;
  model: string | null;
  charge: number;
  cost: number;
  inputTokens: number;
  outputTokens: number;
  byok: boolean;
  /** An answer from gw's cache: a `cache` row with its saving, never counted or charged. */
  cacheSaved?: number;
  /** The request's log row carries the charge (store/log-writer.ts): settle returns it to hand over. */
  withRow?: boolean;
}

export type Reservation = { ok: true; hold: Hold; admission: Admission } | { ok: false; admission: Admission & { ok: false } };

/** How often credits written by another process (the CLI) are picked up. */
const CREDIT_POLL_MS = 2_000;

export class Billing {
  private readonly accounts = new Map<string, Account>();
  private lastId = "";
  private lastAccount: Account | null = null;
  readonly writer: LedgerWriter;
  /** Charges handed to the log writer and not committed yet. */
  readonly pending: PendingCharges;
  private creditCursor: number;
  private poller: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly repo: LedgerRepo,
    private readonly onError: (err: unknown, context: string) => void,
    writerOptions: LedgerWriterOptions = {},
    /** Periods, holds and budget events read it (deps.clock; tests move it). */
    private readonly clock: Clock = systemClock,
    /** Credits, budget and plan webhooks (docs/webhooks.md "Event types"); null in the CLI. */
    readonly signals: BillingSignals | null = null,
  ) {
    this.writer = new LedgerWriter(repo, (err, rows) => onError(err, `ledger write of ${rows} entries failed; will retry`), writerOptions);
    this.pending = new PendingCharges((entries) => {
      for (const e of entries) this.writer.append(e);
    });
    // The ledger's sums (accounts, balances, invoices) include the charges not committed yet:
    // those on their way with log rows, and those the ledger writer has queued or sent.
    repo.setUncommitted({
      of: (projectId) => {
        const withRows = this.pending.of(projectId);
        const queued = this.writer.uncommitted(projectId);
        return withRows && queued ? withRows.concat(queued) : withRows ?? queued;
      },
    });
    this.creditCursor = repo.lastCreditSeq();
  }

  /** Start of a process: holds a dead process left open are released (their requests are gone). */
  recover(now = this.clock.now()): number {
    return this.repo.releaseOpenHolds(now);
  }

  startCreditPoll(): void {
    this.poller ??= setInterval(() => this.pollCredits(), CREDIT_POLL_MS);
    this.poller.unref?.();
  }

  /** The account, read from the ledger on first use (after writing what is queued, and with the
   * charges the log worker has not committed, so the sums include every entry of this process). */
  account(projectId: string, at?: number): Account {
    // A request asks for its project's account up to three times: the last one is kept at hand
    // (accounts are never dropped from the map, so it stays the map's).
    if (projectId === this.lastId && this.lastAccount) return this.lastAccount;
    let a = this.accounts.get(projectId);
    if (a) return ((this.lastId = projectId), (this.lastAccount = a));
    // The clock is read only to load one (a default parameter would read it on every call).
    const now = at ?? this.clock.now();
    this.writer.flush();
    a = new Account(this.repo.totals(projectId, dayStart(now), monthStart(now)), now);
    if (this.signals) a.topUp = this.lastTopUp(projectId, a.creditSeq);
    this.accounts.set(projectId, a);
    this.lastId = projectId;
    return (this.lastAccount = a);
  }

  /** Admission and hold in one synchronous call: atomic within the process. */
  reserve(projectId: string, requestId: string, terms: Terms, amount: number, now = this.clock.now()): Reservation {
    const account = this.account(projectId, now);
    const admission = account.admit(terms, amount, now);
    if (!admission.ok) return { ok: false, admission };
    const hold = account.hold(projectId, requestId, amount, terms.monthlyRequests !== null);
    this.writer.append({ projectId, kind: "hold", amount, requestId, createdAt: now });
    return { ok: true, hold, admission };
  }

  /** The answer's charge: closes its hold, if any, and updates a loaded account. A project with
   * nothing to check has no account in memory; its row alone records the charge. `withRow`: the
   * entries are returned for the log row to carry (with the hold when it is still queued). */
  settle(projectId: string, hold: Hold | undefined, s: Settlement, now = this.clock.now()): PendingCharge | null {
    const cache = s.cacheSaved !== undefined;
    const account = hold ? this.account(projectId, now) : this.accounts.get(projectId);
    account?.settle(hold, s.charge, !cache, now);
    const entry: LedgerEntry = {
      projectId, kind: cache ? "cache" : "charge", amount: s.charge, requestId: s.requestId, model: s.model,
      inputTokens: s.inputTokens, outputTokens: s.outputTokens, cost: s.cost, saved: s.cacheSaved ?? 0, byok: s.byok,
      closesHold: hold !== undefined, createdAt: now,
    };
    if (!s.withRow) return this.writer.append(entry), null;
    const held = hold ? this.writer.takeHold(s.requestId) : null;
    const charge = new PendingCharge(this.pending, held ? [held, entry] : [entry], entry);
    this.pending.add(charge);
    return charge;
  }

  /** A request that ends without an answer gives its whole hold back. */
  release(hold: Hold, now = this.clock.now()): void {
    if (!hold.open) return;
    this.accounts.get(hold.projectId)?.release(hold);
    hold.open = false;
    this.writer.append({ projectId: hold.projectId, kind: "release", amount: hold.amount, requestId: hold.requestId, closesHold: true, createdAt: now });
  }

  /** Adds credit (a payment on postpaid), written before it is acknowledged; returns the balance. */
  credit(projectId: string, usd: number, note: string | null, now = this.clock.now()): number {
    const amount = toNano(usd);
    this.repo.append({ projectId, kind: "credit", amount, note, createdAt: now });
    this.pollCredits();
    return this.balance(projectId);
  }

  /** Balance in nano-USD: the loaded account's, else summed from the ledger (less the charges
   * the log worker has not committed). */
  balance(projectId: string): number {
    const a = this.accounts.get(projectId);
    if (a) return a.balance;
    this.writer.flush();
    return this.repo.balanceOf(projectId);
  }

  budgetEvent(projectId: string, requestId: string, o: { period: string; key: string; budget: number; spent: number; reserved: number }, action: string, now = this.clock.now()): void {
    const account = this.accounts.get(projectId);
    const id = `${o.period}:${o.key}:${action}`;
    if (!account || account.fired.has(id)) return;
    account.fired.add(id);
    try {
      this.repo.budgetEvent({ projectId, period: o.period, periodKey: o.key, action, budget: o.budget, spent: o.spent, reserved: o.reserved, requestId, createdAt: now });
    } catch (err) {
      this.onError(err, "could not record a budget event");
    }
  }

  /** Applies credit rows this process has not counted yet (its own, and other processes'). */
  pollCredits(): void {
    try {
      for (const row of this.repo.creditsAfter(this.creditCursor)) {
        this.creditCursor = row.seq;
        const a = this.accounts.get(row.project_id);
        const top = { seq: row.seq, amount: row.amount };
        if (a && row.seq > a.creditSeq) (a.balance += row.amount), (a.creditSeq = row.seq), (a.topUp = top);
        this.signals?.credited(row.project_id, top, this.balance(row.project_id));
      }
    } catch (err) {
      // A closed database (shutdown) ends the polling; anything else is logged and retried.
      if (String(err).includes("closed")) this.stop();
      else this.onError(err, "could not read new credits");
    }
  }

  /** The credit row `seq` of this project, read once when its account loads (credit rows are few). */
  private lastTopUp(projectId: string, seq: number): TopUp | null {
    if (seq <= 0) return null;
    for (const row of this.repo.creditsAfter(seq - 1)) {
      if (row.seq === seq && row.project_id === projectId) return { seq, amount: row.amount };
      break;
    }
    return null;
  }

  /** Resolves once every entry queued so far, and every charge handed to the log, is written. */
  async drain(): Promise<void> {
    await this.pending.drain();
    await this.writer.drain();
  }

  stop(): void {
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
    this.writer.flush();
  }
}
