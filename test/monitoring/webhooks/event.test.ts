import { describe, expect, test } from "bun:test";
import {
  buildEvent,
  isoWithOffset,
  isWebhookEventType,
  subscribes,
  unknownEventTypes,
  WEBHOOK_EVENT_TYPES,
} from "../../../src/monitoring/webhooks/event.ts";

const T = Date.UTC(2026, 10, 26, 4, 40, 5, 123);

describe("webhook event envelope", () => {
  test("has id, type, version, ISO timestamp with offset, project_id and data", () => {
    const e = buildEvent("incident.opened", "prj_1", { incident_id: "inc_1" }, T);
    expect(e.id).toMatch(/^evt_[0-9a-z]{22}$/);
    expect(e).toEqual({
      id: e.id,
      type: "incident.opened",
      version: "2026-10-04",
      timestamp: "2026-11-26T04:40:05.123+00:00",
      project_id: "prj_1",
      data: { incident_id: "inc_1" },
    });
    expect(Date.parse(e.timestamp)).toBe(T);
  });

  test("event ids are unique and sort by creation time", () => {
    const a = buildEvent("test.ping", "prj_1", {}, T).id;
    const b = buildEvent("test.ping", "prj_1", {}, T).id;
    const c = buildEvent("test.ping", "prj_1", {}, T + 1000).id;
    expect(a).not.toBe(b);
    expect([c, b, a].sort()).toEqual([a, b, c]);
  });

  test("isoWithOffset writes +00:00, never Z", () => {
    expect(isoWithOffset(0)).toBe("1970-01-01T00:00:00.000+00:00");
  });
});

describe("event catalogue", () => {
  test("lists every type of the issue once", () => {
    expect(WEBHOOK_EVENT_TYPES).toHaveLength(19);
    expect(new Set(WEBHOOK_EVENT_TYPES).size).toBe(WEBHOOK_EVENT_TYPES.length);
    for (const t of ["test.ping", "budget.threshold_reached", "security.auth_failure_spike", "webhook.endpoint_disabled"]) {
      expect(WEBHOOK_EVENT_TYPES as readonly string[]).toContain(t);
    }
  });

  test("the type guard accepts catalogue types only", () => {
    for (const t of WEBHOOK_EVENT_TYPES) expect(isWebhookEventType(t)).toBe(true);
    for (const v of ["", "incident", "incident.*", "Incident.Opened", "test.ping ", 1, null, undefined, {}]) {
      expect(isWebhookEventType(v)).toBe(false);
    }
  });

  test("subscriptions: none means all, a list means exactly those", () => {
    expect(subscribes(undefined, "credits.low")).toBe(true);
    expect(subscribes(null, "credits.low")).toBe(true);
    expect(subscribes(["credits.low"], "credits.low")).toBe(true);
    expect(subscribes(["credits.low"], "credits.added")).toBe(false);
    expect(subscribes([], "test.ping")).toBe(false);
  });

  test("unknownEventTypes names the misspelt ones", () => {
    expect(unknownEventTypes(["test.ping", "incident.open", "budget.exceeded", "x"])).toEqual(["incident.open", "x"]);
    expect(unknownEventTypes([])).toEqual([]);
  });
});
