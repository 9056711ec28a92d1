// Rate limits (issue 9 item 5, docs/rate-limits.md): requests and tokens per minute, checked with
// GCRA in memory. One gw process owns a data directory, so one in-process table is the whole truth;
// each check is O(1), no timer runs per key, and idle entries are swept so memory stays bounded.
import type { RequestRecord } from "../store/repos/requests.ts";
import type { Decision, Level, RateLimitStore, TokenEstimate } from "../store/rate-limit-store.ts";
import { RATE_EPSILON_MS, RATE_WINDOW_MS } from "../store/rate-limit-store.ts";
import { limitHeaders } from "./rate-limit-headers.ts";

export type { Decision, Level, Limits, TokenEstimate } from "../store/rate-limit-store.ts";

/** Module-local copies: the hot path reads plain constants, as it did before the interface moved. */
const WINDOW_MS = RATE_WINDOW_MS;
const EPSILON_MS = RATE_EPSILON_MS;

/** GCRA keeps one theoretical arrival time per dimension: the moment the allowance is full again. */
interface Cell {
  reqTat: number;
  tokTat: number;
  /** Admitted requests not settled yet; a cell that carries one is never swept. */
  inFlight: number;
}

/** What settle needs: the token charge made at admission, and on which cells at which rate. */
interface Ticket {
  at: number;
  estimate: number;
  cells: Array<{ cell: Cell; msPerToken: number }>;
}

/** A cell as a restart reads it back: arrival times in epoch ms. */
export interface SavedCell {
  id: string;
  reqTat: number;
  tokTat: number;
}

export interface RateLimiterOptions {
  now?: () => number;
  /** Entries (cells plus unsettled tickets) kept before idle ones are swept, at the least. */
  sweepFloor?: number;
  /** Hard cap on cells: past it the oldest go even if not idle (a leniency, never a refusal). */
  maxCells?: number;
  /** An admission never settled (its request was never recorded) is dropped after this. */
  ticketTtlMs?: number;
}

export class RateLimiter implements RateLimitStore {
  private readonly cells = new Map<string, Cell>();
  private readonly tickets = new Map<string, Ticket>();
  private readonly now: () => number;
  private readonly sweepFloor: number;
  private readonly maxCells: number;
  private readonly ticketTtlMs: number;
  private nextSweep: number;

  constructor(options: RateLimiterOptions = {}) {
    this.now = options.now ?? (() => performance.now());
    this.sweepFloor = options.sweepFloor ?? 4096;
    this.maxCells = options.maxCells ?? 200_000;
    this.ticketTtlMs = options.ticketTtlMs ?? 30 * 60_000;
    this.nextSweep = this.sweepFloor;
  }

  get size(): { cells: number; tickets: number } {
    return { cells: this.cells.size, tickets: this.tickets.size };
  }

  /** Admits one request of `estimate` tokens against every level, or none: a refusal by one level
   * charges no other, so one key hitting its own limit never uses up the project's allowance. */
  admit(requestId: string, levels: readonly Level[], estimate: TokenEstimate): Decision {
    const now = this.now();
    if (this.cells.size + this.tickets.size >= this.nextSweep) this.sweep(now);
    const cells: Cell[] = [];
    for (let i = 0; i < levels.length; i++) cells.push(this.cellOf(levels[i]!.id, now));
    let tokens = estimate.bound;
    let refusal = this.firstRefusal(levels, cells, tokens, now);
    // The byte bound can be several times the real count: count exactly before refusing on tokens.
    if (refusal?.dimension === "tpm" && estimate.exact) {
      tokens = Math.min(tokens, estimate.exact());
      refusal = this.firstRefusal(levels, cells, tokens, now);
    }
    if (refusal) return { ok: false, headers: this.headers(levels, cells, now), ...refusal, estimate: tokens };
    let ticket: Ticket | null = null;
    for (let i = 0; i < levels.length; i++) {
      const limits = levels[i]!.limits;
      const rpm = limits.rpm;
      const tpm = limits.tpm;
      const cell = cells[i]!;
      if (rpm) cell.reqTat = Math.max(cell.reqTat, now) + WINDOW_MS / rpm;
      if (tpm) {
        const msPerToken = WINDOW_MS / tpm;
        cell.tokTat = Math.max(cell.tokTat, now) + tokens * msPerToken;
        (ticket ??= { at: now, estimate: tokens, cells: [] }).cells.push({ cell, msPerToken });
        cell.inFlight++;
      }
    }
    if (ticket) this.tickets.set(requestId, ticket);
    return { ok: true, headers: this.headers(levels, cells, now) };
  }

  /** Replaces the admission estimate with the tokens actually used: a smaller answer gives the
   * difference back, a larger one is charged (the next requests wait for it). Idempotent. */
  settle(requestId: string, actualTokens: number): void {
    const ticket = this.tickets.get(requestId);
    if (!ticket) return;
    this.tickets.delete(requestId);
    const delta = actualTokens - ticket.estimate;
    for (const { cell, msPerToken } of ticket.cells) {
      cell.tokTat += delta * msPerToken;
      cell.inFlight--;
    }
  }

  /** Settles every recorded request (deps.requestListeners): record runs once for each request,
   * failed, cancelled and streamed ones included, so no admission is left uncorrected. */
  readonly listener = (row: RequestRecord): void => {
    this.settle(row.id, usedTokens(row.cache !== null, row.inputTokens, row.outputTokens));
  };

  private cellOf(id: string, now: number): Cell {
    let cell = this.cells.get(id);
    if (!cell) this.cells.set(id, (cell = { reqTat: now, tokTat: now, inFlight: 0 }));
    return cell;
  }

  private firstRefusal(levels: readonly Level[], cells: Cell[], tokens: number, now: number) {
    for (let i = 0; i < levels.length; i++) {
      const level = levels[i]!;
      const { rpm, tpm } = level.limits;
      const cell = cells[i]!;
      if (rpm) {
        const wait = waitMs(cell.reqTat, 1, WINDOW_MS / rpm, now);
        if (wait > 0) return { level, dimension: "rpm" as const, retryAfterMs: wait };
      }
      if (tpm) {
        // More tokens than a whole minute's allowance can never be admitted: waiting will not help.
        if (tokens > tpm) return { level, dimension: "tpm" as const, retryAfterMs: null };
        const wait = waitMs(cell.tokTat, tokens, WINDOW_MS / tpm, now);
        if (wait > 0) return { level, dimension: "tpm" as const, retryAfterMs: wait };
      }
    }
    return null;
  }

  /** The headers show the level that binds hardest: the fewest remaining of each dimension. */
  private headers(levels: readonly Level[], cells: Cell[], now: number): Record<string, string> {
    // The tightest level of each dimension, found on numbers: only the two winners become objects.
    let rLimit = 0, rRemaining = 0, rReset = 0, tLimit = 0, tRemaining = 0, tReset = 0;
    let hasRequests = false, hasTokens = false;
    for (let i = 0; i < levels.length; i++) {
      const limits = levels[i]!.limits;
      const rpm = limits.rpm;
      const tpm = limits.tpm;
      const cell = cells[i]!;
      if (rpm) {
        const used = Math.max(0, cell.reqTat - now);
        const remaining = Math.max(0, Math.floor(rpm - (used * rpm) / WINDOW_MS + 1e-9));
        if (!hasRequests || remaining < rRemaining || (remaining === rRemaining && used > rReset)) (hasRequests = true), (rLimit = rpm), (rRemaining = remaining), (rReset = used);
      }
      if (tpm) {
        const used = Math.max(0, cell.tokTat - now);
        const remaining = Math.max(0, Math.floor(tpm - (used * tpm) / WINDOW_MS + 1e-9));
        if (!hasTokens || remaining < tRemaining || (remaining === tRemaining && used > tReset)) (hasTokens = true), (tLimit = tpm), (tRemaining = remaining), (tReset = used);
      }
    }
    return limitHeaders(
      hasRequests ? { limit: rLimit, remaining: rRemaining, resetMs: rReset } : null,
      hasTokens ? { limit: tLimit, remaining: tRemaining, resetMs: tReset } : null,
    );
  }

  /** The cells still filling (arrival times ahead of now), as epoch ms, for a restart to pick up
   * (rate-limit-state.ts). A full cell is the same as an absent one, so only these matter. */
  saved(epochNow: number): SavedCell[] {
    const now = this.now();
    const out: SavedCell[] = [];
    for (const [id, cell] of this.cells) {
      if (cell.reqTat <= now && cell.tokTat <= now) continue;
      out.push({ id, reqTat: Math.round(cell.reqTat - now + epochNow), tokTat: Math.round(cell.tokTat - now + epochNow) });
    }
    return out;
  }

  /** Takes saved cells back (at start, before any admission); ones already full again are skipped. */
  restore(saved: readonly SavedCell[], epochNow: number): number {
    const now = this.now();
    let n = 0;
    for (const c of saved) {
      if (this.cells.size >= this.maxCells) break;
      const reqTat = c.reqTat - epochNow + now;
      const tokTat = c.tokTat - epochNow + now;
      if (reqTat <= now && tokTat <= now) continue;
      this.cells.set(c.id, { reqTat, tokTat, inFlight: 0 });
      n++;
    }
    return n;
  }

  /** Amortised O(1): a full pass only after the table has doubled since the last one. A cell whose
   * arrival times have passed is full, the same as absent, so dropping it changes no decision. */
  private sweep(now: number): void {
    for (const [id, ticket] of this.tickets) {
      if (now - ticket.at < this.ticketTtlMs) continue;
      this.settle(id, ticket.estimate);
    }
    for (const [id, cell] of this.cells) {
      if (cell.inFlight === 0 && cell.reqTat <= now && cell.tokTat <= now) this.cells.delete(id);
    }
    // Past the cap, the oldest cells go even if not full: a client forgotten starts full again.
    // Cells with requests in flight stay, so their settlement still lands.
    for (const [id, cell] of this.cells) {
      if (this.cells.size <= this.maxCells) break;
      if (cell.inFlight === 0) this.cells.delete(id);
    }
    this.nextSweep = Math.max(this.sweepFloor, 2 * (this.cells.size + this.tickets.size));
  }
}

/** Tokens a request took from models: none for a cache hit, which called none. */
export const usedTokens = (cacheHit: boolean, input: number, output: number): number => (cacheHit ? 0 : input + output);

/** How long until `cost` more units fit in the minute's allowance; 0 when they fit now. */
function waitMs(tat: number, cost: number, interval: number, now: number): number {
  const after = Math.max(tat, now) + cost * interval;
  const over = after - now - WINDOW_MS;
  return over > EPSILON_MS ? over : 0;
}
