// Security events across instances on a real redis-server (src/monitoring/events/security-shared.ts):
// three instances' tallies of one window become ONE event with the summed count, sent by the leader
// only once the window has ended plus its grace; failed authentications spread over instances make one spike.
import { describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/lib/clock.ts";
import { SecurityEvents } from "../../../src/monitoring/events/security-events.ts";
import { SHARED_WINDOW_GRACE_MS, SharedSecurityWindows } from "../../../src/monitoring/events/security-shared.ts";
import { WINDOW_MS } from "../../../src/monitoring/events/thresholds.ts";
import type { EmitInput } from "../../../src/monitoring/webhooks/emitter.ts";
import { redisForFile } from "../../helpers/services.ts";
import { waitFor } from "../../helpers/wait-for.ts";

const redis = redisForFile();
const T0 = Date.parse("2026-11-18T12:00:00.000Z");
const blocked = { pii: "block" as const, secrets: "redact" as const, found: { email: 2 }, action: "blocked" as const };

/** Three instances on one Redis key space, each with its own clock-driven SecurityEvents. */
function instances(threshold = 20) {
  const prefix = redis.keySpace("sec");
  const clock = new ManualClock(T0);
  const errors: unknown[] = [];
  const direct: EmitInput[] = [];
  const three = [0, 1, 2].map(() => {
    const windows = new SharedSecurityWindows(redis.client(), (err) => errors.push(err), prefix);
    return { windows, events: new SecurityEvents((e) => (direct.push(e), null), clock, () => {}, threshold, windows) };
  });
  return { clock, three, direct, errors, prefix };
}

describe("shared security windows", () => {
  test("three instances' tallies of one window: one event, counts summed, request ids merged; not before the grace", async () => {
    const { clock, three, direct, errors } = instances();
    three.forEach(({ events }, i) => {
      for (let n = 0; n < 3; n++) events.guarded("prj_a", `req_${i}_${n}`, blocked);
      events.ipBlocked("prj_a", `req_ip_${i}`, `key_${i}`);
    });
    clock.advance(WINDOW_MS);
    for (const { events, windows } of three) {
      expect(events.flush()).toBe(2);
      await windows.idle();
    }
    expect(direct).toEqual([]);
    const sent: EmitInput[] = [];
    const emit = (e: EmitInput) => (sent.push(e), null);
    expect(await three[0]!.windows.sendDue(T0 + WINDOW_MS + SHARED_WINDOW_GRACE_MS - 1, emit)).toBe(0);
    expect(await three[1]!.windows.sendDue(T0 + WINDOW_MS + SHARED_WINDOW_GRACE_MS, emit)).toBe(2);
    const byType = Object.fromEntries(sent.map((e) => [e.type, e]));
    expect(byType["security.pii_blocked"]).toMatchObject({ projectId: "prj_a", key: "2026-11-18T12:00:00.000Z", data: { count: 9, kinds: ["email"] } });
    expect((byType["security.pii_blocked"]?.data.request_ids as string[]).sort()).toEqual(
      [0, 1, 2].flatMap((i) => [0, 1, 2].map((n) => `req_${i}_${n}`)).sort());
    expect(byType["security.ip_blocked"]?.data).toMatchObject({ count: 3, key_ids: ["key_0", "key_1", "key_2"] });
    // Sent and removed: another leader's pass finds nothing.
    expect(await three[2]!.windows.sendDue(T0 + 10 * WINDOW_MS, emit)).toBe(0);
    expect(errors).toEqual([]);
  });

  test("failed authentications spread over three instances: one spike when the shared count reaches the threshold", async () => {
    const { three, direct, errors, prefix } = instances(9);
    for (let n = 0; n < 12; n++) three[n % 3]!.events.authFailed({ id: `key_${n % 3}`, projectId: "prj_b" });
    await waitFor(() => direct.length >= 1, { what: "the spike" });
    // Every count is in (12 INCRs), so no second spike can still come.
    const reader = redis.client();
    await waitFor(async () => Number(await reader.send("GET", [`${prefix}auth:prj_b|${T0}`])) === 12, { what: "all 12 failures counted" });
    expect(direct.map((e) => [e.type, e.data.failures, e.data.threshold])).toEqual([["security.auth_failure_spike", 9, 9]]);
    expect(errors).toEqual([]);
  });
});
