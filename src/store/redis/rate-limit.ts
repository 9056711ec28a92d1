// Rate limits shared by every instance on one Redis (docs/rate-limits.md): one hash per level, one
// admission script call for all levels' RPM and TPM, the token estimate settled by a second script
// after the answer. Keys expire once their allowance is whole again (plus a grace for late settles).
import type { RedisClient } from "bun";
import type { RequestRecord } from "../repos/requests.ts";
import {
  RATE_EPSILON_MS, RATE_WINDOW_MS, type Decision, type Level, type LimitHeaders, type LimitSnapshot, type RateLimitStore, type TokenEstimate,
} from "../rate-limit-store.ts";
import { REDIS_TIMEOUT_MS, textFields } from "./redis-call.ts";
import { admitScript, settleScript } from "./rate-limit-scripts.ts";

export interface RedisRateLimiterOptions {
  /** Epoch ms; every instance's clock should agree (NTP): the times stored are absolute. */
  now?: () => number;
  /** billing/rate-limit-headers.ts limitHeaders, passed down by the factory (store sits below billing). */
  headers: LimitHeaders;
  /** Key prefix: `${prefix}rl:${level.id}`. */
  prefix?: string;
  timeoutMs?: number;
  /** How long a level's key outlives its full allowance, so a late settle still lands. */
  graceMs?: number;
  /** An admission never settled is forgotten after this (its estimate stays charged). */
  ticketTtlMs?: number;
  /** A settle that failed (its estimate stays charged: never more lenient than the truth). */
  onError?: (err: unknown, context: string) => void;
}

interface Ticket {
  at: number;
  estimate: number;
  keys: string[];
  msPerToken: number[];
}

export class RedisRateLimiter implements RateLimitStore {
  private readonly tickets = new Map<string, Ticket>();
  private readonly now: () => number;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly grace: string;
  private readonly ticketTtlMs: number;
  private nextSweep = 4096;

  constructor(private readonly client: RedisClient, private readonly options: RedisRateLimiterOptions) {
    this.now = options.now ?? Date.now;
    this.prefix = `${options.prefix ?? "gw:"}rl:`;
    this.timeoutMs = options.timeoutMs ?? REDIS_TIMEOUT_MS;
    this.grace = String(options.graceMs ?? 10 * 60_000);
    this.ticketTtlMs = options.ticketTtlMs ?? 30 * 60_000;
  }

  get size(): { tickets: number } {
    return { tickets: this.tickets.size };
  }

  async admit(requestId: string, levels: readonly Level[], estimate: TokenEstimate): Promise<Decision> {
    const now = this.now();
    let tokens = estimate.bound;
    let reply = await this.call(levels, tokens, now);
    // The byte bound can be several times the real count: count exactly before refusing on tokens.
    if (reply[0] === "no" && reply[2] === "tpm" && estimate.exact) {
      const exact = Math.min(tokens, estimate.exact());
      if (exact < tokens) reply = await this.call(levels, (tokens = exact), now);
    }
    const headers = this.headers(levels, reply, now);
    if (reply[0] === "no") {
      const wait = Number(reply[3]);
      return { ok: false, headers, level: levels[Number(reply[1]) - 1]!, dimension: reply[2] === "rpm" ? "rpm" : "tpm", retryAfterMs: wait < 0 ? null : wait, estimate: tokens };
    }
    this.remember(requestId, levels, tokens, now);
    return { ok: true, headers };
  }

  /** Settles every recorded request (deps.requestListeners), as the in-process limiter's listener
   * does: a cache hit used no model tokens. A failure goes to onError, never to the request. */
  readonly listener = (row: Pick<RequestRecord, "id" | "cache" | "inputTokens" | "outputTokens">): void => {
    const used = row.cache !== null ? 0 : row.inputTokens + row.outputTokens;
    this.settle(row.id, used).catch((err: unknown) => this.options.onError?.(err, "rate-limit settle failed; the estimate stays charged"));
  };

  async settle(requestId: string, actualTokens: number): Promise<void> {
    const ticket = this.tickets.get(requestId);
    if (!ticket) return;
    this.tickets.delete(requestId);
    const delta = actualTokens - ticket.estimate;
    if (delta === 0) return;
    const args = [String(this.now()), this.grace, ...ticket.msPerToken.map((ms) => fmt(delta * ms))];
    await settleScript.run(this.client, ticket.keys, args, this.timeoutMs);
  }

  private async call(levels: readonly Level[], tokens: number, now: number): Promise<string[]> {
    const keys: string[] = [];
    const args = [fmt(now), String(tokens), String(RATE_WINDOW_MS), String(RATE_EPSILON_MS), this.grace];
    for (const level of levels) {
      keys.push(this.prefix + level.id);
      args.push(String(level.limits.rpm ?? 0), String(level.limits.tpm ?? 0));
    }
    return textFields(await admitScript.run(this.client, keys, args, this.timeoutMs), "rate-limit admit");
  }

  private remember(requestId: string, levels: readonly Level[], tokens: number, now: number): void {
    if (this.tickets.size >= this.nextSweep) this.sweep(now);
    let ticket: Ticket | null = null;
    for (const level of levels) {
      const tpm = level.limits.tpm;
      if (!tpm) continue;
      ticket ??= { at: now, estimate: tokens, keys: [], msPerToken: [] };
      ticket.keys.push(this.prefix + level.id);
      ticket.msPerToken.push(RATE_WINDOW_MS / tpm);
    }
    if (ticket) this.tickets.set(requestId, ticket);
  }

  private sweep(now: number): void {
    for (const [id, ticket] of this.tickets) if (now - ticket.at >= this.ticketTtlMs) this.tickets.delete(id);
    this.nextSweep = Math.max(4096, 2 * this.tickets.size);
  }

  /** The same figures as the in-process limiter: per dimension, the level with the fewest left. */
  private headers(levels: readonly Level[], reply: string[], now: number): Record<string, string> {
    let requests: LimitSnapshot | null = null;
    let tokens: LimitSnapshot | null = null;
    for (let i = 0; i < levels.length; i++) {
      const { rpm, tpm } = levels[i]!.limits;
      if (rpm) requests = tighter(requests, snapshot(rpm, Number(reply[4 + 2 * i]), now));
      if (tpm) tokens = tighter(tokens, snapshot(tpm, Number(reply[5 + 2 * i]), now));
    }
    return this.options.headers(requests, tokens);
  }
}

const fmt = (n: number): string => String(n);

function snapshot(limit: number, tat: number, now: number): LimitSnapshot {
  const used = Math.max(0, tat - now);
  return { limit, remaining: Math.max(0, Math.floor(limit - (used * limit) / RATE_WINDOW_MS + 1e-9)), resetMs: used };
}

const tighter = (a: LimitSnapshot | null, b: LimitSnapshot): LimitSnapshot =>
  a === null || b.remaining < a.remaining || (b.remaining === a.remaining && b.resetMs > a.resetMs) ? b : a;
