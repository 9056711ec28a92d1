// Totals for scoped rules (a model, provider, task or tag), which the per-project rollups cannot
// give: per rule, minute buckets in memory fed by every recorded request, backfilled from the request
// log when the rule is watched (docs/monitoring.md "Scoped rules").
import { bucketOf } from "../../lib/histogram.ts";
import { addRow, addTotals, CALLER_SIDE_CATEGORIES, emptyTotals, type RollupTotals } from "../../store/metrics-rollup.ts";
import { COLUMNS, type SqlValue } from "../../store/log-batch-codec.ts";
import type { RequestRecord } from "../../store/request-record.ts";
import type { AlertRule } from "./rule.ts";

export const MINUTE_MS = 60_000;
/** The most request-log rows read to backfill one rule: about 15 ms on the event loop. */
export const BACKFILL_ROWS = 10_000;
/** The most backfills one evaluation pass starts (after a restart, rules beyond wait a pass), so a
 * pass never holds the event loop for more than a few tens of ms however many scoped rules exist. */
export const BACKFILLS_PER_PASS = 2;

type Scope = AlertRule["scope"];

interface Watch {
  ruleId: string;
  scope: Scope;
  windowMs: number;
  minutes: Map<number, RollupTotals>;
}

const at = (name: (typeof COLUMNS)[number]): number => COLUMNS.indexOf(name);
const C = { createdAt: at("created_at"), requested: at("requested_model"), selected: at("selected_model"), provider: at("provider"), task: at("task"), tags: at("tags") };

/** A request matches when every field the scope names matches (model: requested or answering). */
function matches(s: Scope, model: string | null, selected: string | null, provider: string | null, task: string | null, hasTag: (t: string) => boolean): boolean {
  if (s.model !== undefined && s.model !== model && s.model !== selected) return false;
  if (s.provider !== undefined && s.provider !== provider) return false;
  if (s.task !== undefined && s.task !== task) return false;
  return s.tag === undefined || hasTag(s.tag);
}

/** addRow of the rollups, on a recorded request rather than its insert values. */
function addRecord(t: RollupTotals, r: RequestRecord): void {
  const category = r.errorCategory;
  const callerSide = category !== null && CALLER_SIDE_CATEGORIES.has(category);
  t.requests++;
  if (category !== null) {
    t.failed++;
    if (callerSide) t.callerFailed++;
    t.errors[category] = (t.errors[category] ?? 0) + 1;
  }
  if (r.fallbacks > 0) t.fallbacks++;
  if (r.cache !== null) t.cacheHits++;
  t.inputTokens += r.inputTokens;
  t.outputTokens += r.outputTokens;
  t.cost += r.cost;
  t.saved += r.saved;
  if (!callerSide) t.latency[bucketOf(r.latencyMs)]! += 1;
  if (r.ttftMs !== null) t.ttft[bucketOf(r.ttftMs)]! += 1;
}

function bucket(w: Watch, createdAt: number): RollupTotals {
  const start = createdAt - (createdAt % MINUTE_MS);
  let t = w.minutes.get(start);
  if (!t) w.minutes.set(start, (t = emptyTotals()));
  return t;
}

/** The minutes a window ending at `now` reads: every minute it overlaps, so between the window and
 * one minute more (the current minute counts as it fills). */
export function windowRange(now: number, windowMs: number): { from: number; to: number } {
  const start = now - windowMs;
  return { from: start - (start % MINUTE_MS), to: now - (now % MINUTE_MS) + MINUTE_MS };
}

export class ScopedTotals {
  /** Watches by project: a request of a project with no scoped rule costs one map lookup. */
  private byProject = new Map<string, Watch[]>();

  /** `recent(projectId, from, limit)`: the newest request-log rows from `from` on, as insert values. */
  constructor(private readonly recent: (projectId: string, from: number, limit: number) => SqlValue[][]) {}

  readonly listener = (r: RequestRecord): void => {
    const watches = this.byProject.get(r.projectId);
    if (watches === undefined) return;
    for (const w of watches) {
      if (matches(w.scope, r.requestedModel, r.selectedModel, r.provider, r.task, (tag) => r.tags.includes(tag))) addRecord(bucket(w, r.createdAt), r);
    }
  };

  /** Starts (or restarts, for a changed rule) counting a rule's requests, backfilled from the log's
   * newest BACKFILL_ROWS rows of its window; rows still queued for the log are not yet there. */
  watch(ruleId: string, projectId: string, rule: AlertRule, windowMs: number, now: number): void {
    this.unwatch(ruleId);
    const w: Watch = { ruleId, scope: rule.scope, windowMs, minutes: new Map() };
    for (const v of this.recent(projectId, windowRange(now, windowMs).from, BACKFILL_ROWS)) {
      const tags = v[C.tags];
      const hasTag = (tag: string) => typeof tags === "string" && (JSON.parse(tags) as string[]).includes(tag);
      if (matches(w.scope, v[C.requested] as string | null, v[C.selected] as string | null, v[C.provider] as string | null, v[C.task] as string | null, hasTag)) {
        addRow(bucket(w, v[C.createdAt] as number), v);
      }
    }
    const list = this.byProject.get(projectId) ?? [];
    list.push(w);
    this.byProject.set(projectId, list);
  }

  unwatch(ruleId: string): void {
    for (const [projectId, list] of this.byProject) {
      const rest = list.filter((w) => w.ruleId !== ruleId);
      if (rest.length === list.length) continue;
      if (rest.length === 0) this.byProject.delete(projectId);
      else this.byProject.set(projectId, rest);
    }
  }

  watching(ruleId: string): boolean {
    for (const list of this.byProject.values()) if (list.some((w) => w.ruleId === ruleId)) return true;
    return false;
  }

  /** The rule's totals over its window ending at `now`; minutes before the window are dropped. */
  totals(ruleId: string, now: number): RollupTotals {
    const t = emptyTotals();
    for (const list of this.byProject.values()) {
      for (const w of list) {
        if (w.ruleId !== ruleId) continue;
        const { from, to } = windowRange(now, w.windowMs);
        for (const [start, minute] of w.minutes) {
          if (start < from) w.minutes.delete(start);
          else if (start < to) addTotals(t, minute);
        }
      }
    }
    return t;
  }
}
