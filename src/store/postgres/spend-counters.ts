// Budget and plan counters on PostgreSQL (docs/scale-out.md "PostgreSQL"): one spend_counters row
// per project, period and key, changed by gw_apply_counters (migration 006) after the account row
// and in name order, so concurrent reservations and settlements never deadlock.
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

/** "daily/2026-11-26": how open holds name the rows they reserved in. */
export const counterName = (period: Period, key: string): string => `${period}/${key}`;

/** The change for (period, key), made empty on first use. */
export function changeOf(changes: Map<string, CounterChange>, period: Period, key: string): CounterChange {
  const name = counterName(period, key);
  let c = changes.get(name);
  if (!c) changes.set(name, (c = { period, key, reserved: 0, inflight: 0, spent: 0, requests: 0, budget: null, plan: null }));
  return c;
}

/** The changes in name order, as gw_apply_counters takes them (JSON text). */
export const counterChanges = (changes: Map<string, CounterChange>): string =>
  JSON.stringify([...changes.keys()].sort().map((name) => changes.get(name)));
