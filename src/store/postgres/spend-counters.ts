// Budget and plan counters on PostgreSQL (docs/scale-out.md "PostgreSQL"): one spend_counters row
// per project, period and key, changed by conditional UPDATEs after the account row and in key
// order, so concurrent reservations and settlements never deadlock.
import type { TransactionSQL } from "bun";
import type { Period } from "../money-store.ts";

export interface CounterChange {
  period: Period;
  key: string;
  reserved: number;
  inflight: number;
  spent: number;
  requests: number;
  /** Refuse when spent + reserved would pass it (a `block` budget); null: no budget here. */
  budget: number | null;
  /** Refuse when answered + held places would reach it (the plan's allowance); null: none. */
  plan: number | null;
}

export type CounterRefusal =
  | { ok: false; code: "budget_exceeded"; period: Period; spent: number; reserved: number }
  | { ok: false; code: "plan_limit" };

/** "daily/2026-11-26": how open holds name the rows they reserved in. */
export const counterName = (period: Period, key: string): string => `${period}/${key}`;

export function parseCounterName(name: string): { period: Period; key: string } | null {
  const [period, key] = name.split("/");
  return (period === "daily" || period === "monthly") && key ? { period, key } : null;
}

/** The change for (period, key), made empty on first use. */
export function changeOf(changes: Map<string, CounterChange>, period: Period, key: string): CounterChange {
  const name = counterName(period, key);
  let c = changes.get(name);
  if (!c) changes.set(name, (c = { period, key, reserved: 0, inflight: 0, spent: 0, requests: 0, budget: null, plan: null }));
  return c;
}

/** Applies every change in name order; the first one its limits refuse is returned (the caller
 * rolls the transaction back), else null. */
export async function applyCounters(tx: TransactionSQL, projectId: string, changes: Map<string, CounterChange>): Promise<CounterRefusal | null> {
  for (const name of [...changes.keys()].sort()) {
    const c = changes.get(name);
    if (!c) continue;
    await tx`INSERT INTO spend_counters (project_id, period, period_key) VALUES (${projectId}, ${c.period}, ${c.key}) ON CONFLICT DO NOTHING`;
    const done = await tx`UPDATE spend_counters SET reserved = reserved + ${c.reserved}, inflight = inflight + ${c.inflight},
        spent = spent + ${c.spent}, requests = requests + ${c.requests}
      WHERE project_id = ${projectId} AND period = ${c.period} AND period_key = ${c.key}
        AND (${c.budget}::bigint IS NULL OR spent + reserved + ${c.reserved} <= ${c.budget}::bigint)
        AND (${c.plan}::bigint IS NULL OR requests + inflight < ${c.plan}::bigint)
      RETURNING 1`;
    if (done.length > 0) continue;
    const [row] = await tx`SELECT spent, reserved, requests, inflight FROM spend_counters
      WHERE project_id = ${projectId} AND period = ${c.period} AND period_key = ${c.key}`;
    if (c.plan !== null && Number(row?.requests ?? 0) + Number(row?.inflight ?? 0) >= c.plan) return { ok: false, code: "plan_limit" };
    return { ok: false, code: "budget_exceeded", period: c.period, spent: Number(row?.spent ?? 0), reserved: Number(row?.reserved ?? 0) };
  }
  return null;
}
