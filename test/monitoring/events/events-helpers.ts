// Shared by the event-source tests (docs/webhooks.md "Event types"): a real gw on a ManualClock in
// front of a scripted OpenAI, and the webhook_events rows a project's events left.
import { ManualClock } from "../../../src/lib/clock.ts";
import { openaiUpstream, startGw } from "../../helpers/start-gw.ts";
import type { TestGw } from "../../helpers/test-gw.ts";

export { ManualClock };

/** Midday UTC, so no test crosses a day or month by accident. */
export const NOON = Date.parse("2026-11-18T12:00:00.000Z");

export async function startEventsGw(clock = new ManualClock(NOON), env: Record<string, string> = {}) {
  const { gw, upstreams, stop } = await startGw({
    upstreams: { openai: openaiUpstream({}, "sk-billing-operator-000000") }, env: { GW_SEMANTIC_EMBEDDER: "off", ...env }, clock,
  });
  return { gw, upstream: upstreams.openai, stop, clock };
}

export interface StoredEvent {
  type: string;
  key: string;
  data: Record<string, unknown>;
  body: string;
}

/** The project's stored events (of `type`, when given), oldest first. */
export function eventsOf(gw: TestGw, projectId: string, type?: string): StoredEvent[] {
  const rows = gw.deps.db
    .query<{ type: string; natural_key: string; body: string }, [string]>("SELECT type, natural_key, body FROM webhook_events WHERE project_id = ? ORDER BY id")
    .all(projectId);
  return rows
    .filter((r) => type === undefined || r.type === type)
    .map((r) => ({ type: r.type, key: r.natural_key, body: r.body, data: (JSON.parse(r.body) as { data: Record<string, unknown> }).data }));
}

export type { TestGw };
