// The pure pieces of the event sources: threshold crossings, 5-minute windows, the bounded once-set.
import { describe, expect, test } from "bun:test";
import { crossed, fellBelow, Once, WINDOW_MS, windowStart } from "../../../src/monitoring/events/thresholds.ts";

describe("crossed", () => {
  test("each percent passed between before and after, none when nothing moved past one", () => {
    expect(crossed(0, 49, 100, [50, 80, 100])).toEqual([]);
    expect(crossed(49, 50, 100, [50, 80, 100])).toEqual([50]);
    expect(crossed(50, 79, 100, [50, 80, 100])).toEqual([]);
    expect(crossed(10, 100, 100, [50, 80, 100])).toEqual([50, 80, 100]);
    expect(crossed(100, 150, 100, [50, 80, 100])).toEqual([]);
    // Going down (a refund, a new period's figure) crosses nothing; no limit, nothing.
    expect(crossed(90, 10, 100, [50])).toEqual([]);
    expect(crossed(0, 10, 0, [50])).toEqual([]);
  });

  test("fellBelow: from at or above the threshold to under it", () => {
    expect(fellBelow(20, 19, 20)).toBe(true);
    expect(fellBelow(21, 20, 20)).toBe(false);
    expect(fellBelow(19, 10, 20)).toBe(false);
  });
});

describe("windows and Once", () => {
  test("5-minute windows aligned to the epoch", () => {
    const t = Date.parse("2026-11-18T12:07:31.000Z");
    expect(new Date(windowStart(t)).toISOString()).toBe("2026-11-18T12:05:00.000Z");
    expect(windowStart(windowStart(t) + WINDOW_MS - 1)).toBe(windowStart(t));
  });

  test("first() is true once per key, and forgets everything past its bound", () => {
    const once = new Once(2);
    expect([once.first("a"), once.first("a"), once.first("b")]).toEqual([true, false, true]);
    expect(once.first("c")).toBe(true);
    expect(once.first("a")).toBe(true);
  });
});
