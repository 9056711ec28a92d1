// Scoped rules with several instances (docs/scale-out.md): each pass reads only the minutes not yet
// settled from the shared request log; minutes older than a request can still be logged for are kept
// in memory per rule (as single-node's ScopedTotals keeps its minutes), so a 24h window is not re-read.
import { addTotals, emptyTotals, type RollupTotals } from "../../store/metrics-rollup.ts";
import type { AlertRule } from "./rule.ts";

const MINUTE_MS = 60_000;
/** A minute this old is complete: a request's row commits at its end, within the log's bounds. */
export const SCOPED_SETTLE_MS = 5 * MINUTE_MS;
/** A rule not evaluated for this long (deleted, disabled, another leader) is forgotten. */
const IDLE_MS = 3_600_000;

export type ScopedMinutesQuery = (projectId: string, scope: AlertRule["scope"], from: number, to: number) => Promise<Map<number, RollupTotals>>;

interface Cached { version: string; minutes: Map<number, RollupTotals>; settledTo: number; usedAt: number }

export class ScopedMinuteCache {
  private readonly byRule = new Map<string, Cached>();

  constructor(private readonly query: ScopedMinutesQuery) {}

  /** The rule's totals over [from, to) at `now`; `version` changes when the rule does (its cache starts over). */
  async totals(rule: { id: string; version: string; projectId: string; scope: AlertRule["scope"] }, from: number, to: number, now: number): Promise<RollupTotals> {
    this.forgetIdle(now);
    let c = this.byRule.get(rule.id);
    if (!c || c.version !== rule.version || c.settledTo < from) this.byRule.set(rule.id, (c = { version: rule.version, minutes: new Map(), settledTo: from, usedAt: now }));
    c.usedAt = now;
    const start = Math.min(Math.max(from, c.settledTo), to);
    const fresh = await this.query(rule.projectId, rule.scope, start, to);
    const t = emptyTotals();
    for (const [minute, m] of c.minutes) {
      if (minute < from || minute >= start) c.minutes.delete(minute);
      else addTotals(t, m);
    }
    const settled = now - (now % MINUTE_MS) - SCOPED_SETTLE_MS;
    for (const [minute, m] of fresh) {
      addTotals(t, m);
      if (minute < settled) c.minutes.set(minute, m);
    }
    if (settled > start) c.settledTo = Math.min(settled, to);
    return t;
  }

  private forgetIdle(now: number): void {
    for (const [id, c] of this.byRule) if (now - c.usedAt > IDLE_MS) this.byRule.delete(id);
  }
}
