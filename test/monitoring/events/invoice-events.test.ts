// invoice.created (docs/webhooks.md "Event types"): after a UTC month closes, one event per project
// with ledger activity in it, with the totals the invoices endpoint computes; a quiet project gets none.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { boundMessageTokens } from "../../../src/analysis/tokens.ts";
import { admin, answerWith, billedProject, chat, user } from "../../flows/billing/billing-helpers.ts";
import { ok } from "../../helpers/admin-api.ts";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { eventsOf, ManualClock, startEventsGw, type TestGw } from "./events-helpers.ts";

const clock = new ManualClock(Date.parse("2026-11-30T23:00:00.000Z"));
let gw: TestGw;
let upstream: ScriptedUpstream;
let stop: () => Promise<void>;
beforeAll(async () => ({ gw, upstream, stop } = await startEventsGw(clock)));
afterAll(() => stop());

describe("invoice.created", () => {
  test("sent once the month has closed, with the invoice's totals, once per project and month", async () => {
    const busy = await billedProject(gw);
    const quiet = await billedProject(gw);
    const messages = user("Total the invoice lines.");
    upstream.script({ body: answerWith(boundMessageTokens(messages), 20) }, 1);
    expect((await chat(gw, busy.key, { messages, max_tokens: 20 })).status).toBe(200);
    // November is still open.
    gw.deps.eventSources.runDue();
    expect(eventsOf(gw, busy.id, "invoice.created")).toEqual([]);

    clock.set(Date.parse("2026-12-01T00:05:00.000Z"));
    gw.deps.eventSources.runDue();
    gw.deps.eventSources.runDue();
    const events = eventsOf(gw, busy.id, "invoice.created");
    expect(events).toHaveLength(1);
    expect(events[0]!.key).toBe("2026-11");
    const [invoice] = ((await ok(await admin(gw, "GET", `/projects/${busy.id}/invoices?month=2026-11`))).data as Array<Record<string, unknown>>);
    expect(invoice!.status).toBe("closed");
    expect(events[0]!.data).toEqual({
      month: "2026-11", status: "closed", period_start: invoice!.period_start, period_end: invoice!.period_end, currency: "usd",
      plan: invoice!.plan, billing_mode: invoice!.billing_mode, totals: invoice!.totals,
    });
    expect((events[0]!.data.totals as { requests: number }).requests).toBe(1);
    expect(eventsOf(gw, quiet.id, "invoice.created")).toEqual([]);
  });
});
