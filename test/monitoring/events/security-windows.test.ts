// SecurityEvents on its own (docs/webhooks.md "Event types"): one event per project, type and
// 5-minute window, sent when the window ends; at most 100 request ids; a spike sent at its threshold.
import { describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/lib/clock.ts";
import type { EmitInput } from "../../../src/monitoring/webhooks/emitter.ts";
import { SecurityEvents } from "../../../src/monitoring/events/security-events.ts";
import { WINDOW_MS } from "../../../src/monitoring/events/thresholds.ts";

const T0 = Date.parse("2026-11-18T12:00:00.000Z");

function setup(threshold = 3) {
  const clock = new ManualClock(T0);
  const sent: EmitInput[] = [];
  const spikes: number[] = [];
  const events = new SecurityEvents((e) => (sent.push(e), null), clock, (n) => spikes.push(n), threshold);
  return { clock, sent, spikes, events };
}

const blocked = { pii: "block" as const, secrets: "redact" as const, found: { email: 2 }, action: "blocked" as const };

describe("windows", () => {
  test("a request in the next window closes the previous one; each is sent once, when flushed", () => {
    const { clock, sent, events } = setup();
    events.guarded("prj_a", "req_1", blocked);
    events.guarded("prj_b", "req_2", blocked);
    clock.advance(WINDOW_MS);
    events.guarded("prj_a", "req_3", blocked);
    expect(sent).toEqual([]);
    events.flush();
    expect(sent.map((e) => [e.projectId, e.key, e.data.request_ids])).toEqual([
      ["prj_a", "2026-11-18T12:00:00.000Z", ["req_1"]],
      ["prj_b", "2026-11-18T12:00:00.000Z", ["req_2"]],
    ]);
    clock.advance(WINDOW_MS);
    events.flush();
    events.flush();
    expect(sent.map((e) => e.key)).toEqual(["2026-11-18T12:00:00.000Z", "2026-11-18T12:00:00.000Z", "2026-11-18T12:05:00.000Z"]);
  });

  test("count keeps counting past the 100 request ids listed", () => {
    const { clock, sent, events } = setup();
    for (let i = 0; i < 150; i++) events.ipBlocked("prj_a", `req_${i}`, "key_1");
    clock.advance(WINDOW_MS);
    events.flush();
    expect(sent[0]!.data.count).toBe(150);
    expect((sent[0]!.data.request_ids as string[]).length).toBe(100);
    expect(sent[0]!.data.key_ids).toEqual(["key_1"]);
  });

  test("a secret redacted is detected; a request the secrets policy alone blocked is no pii_blocked", () => {
    const { clock, sent, events } = setup();
    events.guarded("prj_a", "req_1", { pii: "redact", secrets: "redact", found: { secret: 1, phone: 1 }, action: "redacted" });
    events.guarded("prj_a", "req_2", { pii: "redact", secrets: "block", found: { private_key: 1, email: 1 }, action: "blocked" });
    clock.advance(WINDOW_MS);
    events.flush();
    expect(sent.map((e) => [e.type, e.data.count, e.data.kinds])).toEqual([["security.secret_detected", 2, ["secret", "private_key"]]]);
  });
});

describe("auth failures", () => {
  test("a project's spike is sent at the threshold, once per window; unknown keys are only reported", () => {
    const { clock, sent, spikes, events } = setup(3);
    for (let i = 0; i < 5; i++) events.authFailed({ id: "key_1", projectId: "prj_a" });
    for (let i = 0; i < 3; i++) events.authFailed(null);
    expect(sent.map((e) => [e.type, e.data.failures])).toEqual([["security.auth_failure_spike", 3]]);
    expect(spikes).toEqual([3]);
    clock.advance(WINDOW_MS);
    for (let i = 0; i < 3; i++) events.authFailed({ id: "key_1", projectId: "prj_a" });
    expect(sent.map((e) => e.key)).toEqual(["2026-11-18T12:00:00.000Z", "2026-11-18T12:05:00.000Z"]);
  });
});
