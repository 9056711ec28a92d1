// Credits, budget and plan events in the multi-instance mode (docs/webhooks.md "Event types"): a
// leader job reads PostgreSQL's spend counters, balances, credits and refused requests, and raises
// each crossing with single-node's natural keys, so it is stored once whichever instance leads.
import type { TransactionSQL } from "bun";
import type { Period, Terms } from "../../billing/account.ts";
import { toUsd } from "../../billing/money.ts";
import { dayKey, monthKey } from "../../billing/periods.ts";
import { termsOf } from "../../billing/terms.ts";
import type { LeaderJob } from "../../store/postgres/leader.ts";
import type { Project } from "../../store/repos/projects.ts";
import type { EmitEvent } from "../webhooks/emitter.ts";
import type { WebhookEventType } from "../webhooks/event.ts";
import { BUDGET_PERCENTS, LOW_CREDIT_SHARE, PLAN_WARNING_PERCENT } from "./billing-events.ts";
import { crossed, Once } from "./thresholds.ts";

export const BILLING_EVENTS_EVERY_MS = 5_000;
/** How far back a new leader looks for credits and refusals (the previous one raised older ones). */
const LOOKBACK_MS = 15 * 60_000;
/** A log row or credit commits after its created_at: each pass looks back this much further. */
const LATE_MS = 60_000;

type Row = Record<string, unknown>;

export function sharedBillingEventsJob(projects: () => Project[], emit: EmitEvent, everyMs = BILLING_EVENTS_EVERY_MS): LeaderJob {
  const once = new Once();
  let creditSeq: number | null = null;
  let lastPass: number | null = null;
  const send = (projectId: string, type: WebhookEventType, key: string, data: Record<string, unknown>): void => {
    if (once.first(`${projectId} ${type} ${key}`)) emit({ projectId, type, key, data });
  };

  async function credits(tx: TransactionSQL, now: number): Promise<void> {
    const rows: Row[] = creditSeq === null
      ? await tx`SELECT l.seq, l.project_id, l.amount, a.balance FROM ledger l LEFT JOIN accounts a USING (project_id)
          WHERE l.kind = 'credit' AND l.created_at >= ${now - LOOKBACK_MS} ORDER BY l.seq LIMIT 500`
      : await tx`SELECT l.seq, l.project_id, l.amount, a.balance FROM ledger l LEFT JOIN accounts a USING (project_id)
          WHERE l.kind = 'credit' AND l.seq > ${creditSeq} ORDER BY l.seq LIMIT 500`;
    for (const r of rows) {
      const seq = Number(r.seq);
      send(String(r.project_id), "credits.added", String(seq), { entry_id: seq, amount: toUsd(Number(r.amount)), balance: toUsd(Number(r.balance ?? 0)) });
      creditSeq = Math.max(creditSeq ?? 0, seq);
    }
    creditSeq ??= 0;
  }

  /** Where refusals in the request log are looked for from: since the last pass, or a new leader's lookback. */
  const refusedSince = (now: number): number => (lastPass === null ? now - LOOKBACK_MS : lastPass - LATE_MS);

  async function balances(tx: TransactionSQL, watched: Map<string, Terms>, now: number): Promise<void> {
    const ids = [...watched].filter(([, t]) => t.credit !== null).map(([id]) => id);
    if (ids.length === 0) return;
    const rows: Row[] = await tx`SELECT a.project_id, a.balance, t.seq, t.amount FROM accounts a
      LEFT JOIN LATERAL (SELECT seq, amount FROM ledger WHERE project_id = a.project_id AND kind = 'credit' ORDER BY created_at DESC, seq DESC LIMIT 1) t ON true
      WHERE a.project_id = ANY(${tx.array(ids, "TEXT")}::text[])`;
    const tops = new Map<string, { seq: number; amount: number } | null>();
    for (const r of rows) {
      const projectId = String(r.project_id);
      const terms = watched.get(projectId);
      if (!terms) continue;
      const balance = Number(r.balance);
      const seq = r.seq === null || r.seq === undefined ? null : Number(r.seq);
      const topUp = seq === null ? null : { seq, amount: Number(r.amount) };
      tops.set(projectId, topUp);
      const threshold = topUp ? Math.round(topUp.amount * LOW_CREDIT_SHARE) : 0;
      if (terms.credit === "prepaid" && topUp && balance > 0 && balance < threshold) {
        send(projectId, "credits.low", `topup:${topUp.seq}`, {
          balance: toUsd(balance), threshold: toUsd(threshold), last_top_up: { entry_id: topUp.seq, amount: toUsd(topUp.amount) },
        });
      }
      const available = terms.credit === "limit" ? balance + terms.creditLimit : balance;
      if (available <= 0 && (topUp || terms.credit === "limit")) {
        send(projectId, "credits.depleted", `topup:${topUp?.seq ?? 0}`, {
          reason: "balance_zero", balance: toUsd(balance), credit_limit: terms.credit === "limit" ? toUsd(terms.creditLimit) : null, request_id: null,
        });
      }
    }
    // A request the credit could not cover (its 402 is in the request log): depleted for this top-up.
    const refused: Row[] = await tx`SELECT DISTINCT ON (r.project_id) r.project_id, r.id, coalesce(a.balance, 0) AS balance FROM requests r
        LEFT JOIN accounts a ON a.project_id = r.project_id
      WHERE r.project_id = ANY(${tx.array(ids, "TEXT")}::text[]) AND r.status = 402 AND r.error_code = 'insufficient_credits' AND r.created_at >= ${refusedSince(now)}
      ORDER BY r.project_id, r.created_at`;
    for (const r of refused) {
      const projectId = String(r.project_id);
      const terms = watched.get(projectId);
      if (!terms) continue;
      send(projectId, "credits.depleted", `topup:${tops.get(projectId)?.seq ?? 0}`, {
        reason: "request_refused", balance: toUsd(Number(r.balance)), credit_limit: terms.credit === "limit" ? toUsd(terms.creditLimit) : null, request_id: String(r.id),
      });
    }
  }

  async function exceeded(tx: TransactionSQL, projectId: string, terms: Terms, period: Period, key: string, spent: number, reserved: number, requestId: string | null, now: number): Promise<void> {
    if (!once.first(`${projectId} budget.exceeded ${period}:${key}`)) return;
    const budget = terms.budgets[period] ?? 0;
    await tx`INSERT INTO budget_events (project_id, period, period_key, action, budget, spent, reserved, request_id, created_at)
      VALUES (${projectId}, ${period}, ${key}, ${terms.action}, ${budget}, ${spent}, ${reserved}, ${requestId}, ${now}) ON CONFLICT DO NOTHING`;
    emit({ projectId, type: "budget.exceeded", key: `${period}:${key}`, data: {
      period, period_key: key, budget: toUsd(budget), spent: toUsd(spent), reserved: toUsd(reserved), action: terms.action, request_id: requestId,
    } });
  }

  async function counters(tx: TransactionSQL, watched: Map<string, Terms>, now: number): Promise<void> {
    const ids = [...watched].filter(([, t]) => t.budgets.daily !== undefined || t.budgets.monthly !== undefined || t.monthlyRequests !== null).map(([id]) => id);
    if (ids.length === 0) return;
    const day = dayKey(now);
    const month = monthKey(now);
    const rows: Row[] = await tx`SELECT project_id, period, period_key, spent, reserved, requests FROM spend_counters
      WHERE project_id = ANY(${tx.array(ids, "TEXT")}::text[]) AND ((period = 'daily' AND period_key = ${day}) OR (period = 'monthly' AND period_key = ${month}))`;
    const figures = new Map<string, { spent: number; reserved: number }>();
    for (const r of rows) {
      const projectId = String(r.project_id);
      const terms = watched.get(projectId);
      if (!terms) continue;
      const period: Period = r.period === "monthly" ? "monthly" : "daily";
      const key = String(r.period_key);
      const spent = Number(r.spent);
      const reserved = Number(r.reserved);
      figures.set(`${projectId} ${period}`, { spent, reserved });
      const budget = terms.budgets[period];
      if (budget !== undefined) {
        for (const percent of crossed(0, spent, budget, BUDGET_PERCENTS)) {
          send(projectId, "budget.threshold_reached", `${period}:${key}:${percent}`, { period, period_key: key, percent, budget: toUsd(budget), spent: toUsd(spent), request_id: null });
        }
        // Under `warn` a budget is passed, not refused.
        if (terms.action === "warn" && spent > budget) await exceeded(tx, projectId, terms, period, key, spent, reserved, null, now);
      }
      const limit = terms.monthlyRequests;
      if (period === "monthly" && limit !== null) {
        const used = Number(r.requests);
        const data = (percent: number) => ({ month: key, percent, limit, used });
        if (crossed(0, used, limit, [PLAN_WARNING_PERCENT]).length > 0) send(projectId, "plan.limit_warning", key, data(PLAN_WARNING_PERCENT));
        if (used >= limit) send(projectId, "plan.limit_reached", key, data(100));
      }
    }
    // Under `block` and `downgrade`: a request the budget refused (its 402 is in the request log; the
    // period is named by its message, billing/account.ts budgetMessage).
    const blocking = ids.filter((id) => watched.get(id)?.action !== "warn");
    if (blocking.length === 0) return;
    const since = refusedSince(now);
    const refused: Row[] = await tx`SELECT DISTINCT ON (project_id, monthly) project_id, id, monthly FROM (
        SELECT project_id, id, created_at, error_message LIKE 'The project''s monthly%' AS monthly FROM requests
        WHERE project_id = ANY(${tx.array(blocking, "TEXT")}::text[]) AND status = 402 AND error_code = 'budget_exceeded' AND created_at >= ${since}) r
      ORDER BY project_id, monthly, created_at`;
    for (const r of refused) {
      const projectId = String(r.project_id);
      const terms = watched.get(projectId);
      const period: Period = r.monthly === true ? "monthly" : "daily";
      if (!terms || terms.budgets[period] === undefined) continue;
      const f = figures.get(`${projectId} ${period}`) ?? { spent: 0, reserved: 0 };
      await exceeded(tx, projectId, terms, period, period === "daily" ? day : month, f.spent, f.reserved, String(r.id), now);
    }
  }

  return {
    name: "billing events",
    everyMs,
    async run(tx, now) {
      const watched = new Map<string, Terms>();
      for (const p of projects()) {
        const terms = termsOf(p);
        if (terms) watched.set(p.id, terms);
      }
      await credits(tx, now);
      await balances(tx, watched, now);
      await counters(tx, watched, now);
      lastPass = now;
    },
  };
}
