// Uptime windows and the 90 daily bars over UTC days, on the injected clock.
import { describe, expect, test } from "bun:test";
import { dayBars, lastDays, uptimeOf } from "../../../src/monitoring/status/uptime.ts";

const NOW = Date.UTC(2026, 2, 1, 0, 30); // just after midnight UTC, the day after February 28

describe("uptime over UTC days (issue 18 item 5)", () => {
  test("lastDays ends today and crosses month ends", () => {
    expect(lastDays(NOW, 3)).toEqual(["2026-02-27", "2026-02-28", "2026-03-01"]);
    expect(lastDays(NOW, 90)).toHaveLength(90);
    expect(lastDays(NOW, 90)[0]).toBe("2025-12-02");
  });

  test("90 bars, oldest first; a day without counts or traffic has no uptime; shares stay within 0..1", () => {
    const bars = dayBars([
      { day: "2026-03-01", requests: 4, ok: 3 },
      { day: "2026-02-28", requests: 0, ok: 0 },
      { day: "2026-02-27", requests: 2, ok: 5 },
      { day: "2025-12-01", requests: 1, ok: 1 },
    ], NOW);
    expect(bars).toHaveLength(90);
    expect(bars.slice(-3)).toEqual([
      { day: "2026-02-27", uptime: 1 },
      { day: "2026-02-28", uptime: null },
      { day: "2026-03-01", uptime: 0.75 },
    ]);
    expect(bars.filter((b) => b.uptime !== null)).toHaveLength(2);
  });

  test("windows are request-weighted, not averages of days; days outside 90 are ignored", () => {
    const u = uptimeOf({ requests: 10, ok: 9 }, [
      { day: "2026-03-01", requests: 1000, ok: 1000 },
      { day: "2026-02-20", requests: 10, ok: 0 },
      { day: "2026-01-15", requests: 90, ok: 90 },
      { day: "2025-11-01", requests: 1000, ok: 0 },
    ], NOW);
    expect(u["24h"]).toBe(0.9);
    expect(u["7d"]).toBe(1);
    expect(u["30d"]).toBeCloseTo(1000 / 1010, 12);
    expect(u["90d"]).toBeCloseTo(1090 / 1100, 12);
  });
});
