import { describe, expect, test } from "bun:test";
import {
  DISABLE_AFTER_FAILING_MS,
  failedTooLong,
  MAX_ATTEMPTS,
  nextAttemptAt,
  outcomeOf,
  parseRetryAfter,
} from "../../../src/monitoring/webhooks/retry-schedule.ts";

const NOW = Date.UTC(2026, 10, 26, 4, 0, 0);
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const noJitter = (): number => 0;
const maxJitter = (): number => 0.999999;

describe("retry schedule", () => {
  test("follows the Standard Webhooks offsets after each failed attempt, then gives up", () => {
    const expected = [5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 14 * H, 20 * H, 24 * H];
    expect(MAX_ATTEMPTS).toBe(10);
    expected.forEach((delay, i) => expect(nextAttemptAt(i + 1, NOW, null, noJitter)).toBe(NOW + delay));
    expect(nextAttemptAt(10, NOW, null, noJitter)).toBeNull();
    expect(nextAttemptAt(11, NOW, null, noJitter)).toBeNull();
  });

  test("500, 500, 500, 200: four attempts at the schedule's offsets from the first", () => {
    let t = NOW;
    const times = [t];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const next = nextAttemptAt(attempt, t, null, noJitter);
      expect(outcomeOf(500)).toBe("retry");
      if (next === null) throw new Error("schedule ended early");
      t = next;
      times.push(t);
    }
    expect(outcomeOf(200)).toBe("success");
    expect(times.map((x) => x - NOW)).toEqual([0, 5 * S, 5 * S + 5 * M, 5 * S + 5 * M + 30 * M]);
  });

  test("jitter only adds, up to 10 %, and uses the injected random", () => {
    expect(nextAttemptAt(2, NOW, null, () => 0.5)).toBe(NOW + 5 * M + 15 * S);
    const most = nextAttemptAt(9, NOW, null, maxJitter)!;
    expect(most - NOW).toBeGreaterThan(24 * H);
    expect(most - NOW).toBeLessThan(24 * H * 1.1);
  });

  test("Retry-After in seconds moves the attempt later, never earlier", () => {
    expect(nextAttemptAt(1, NOW, "120", noJitter)).toBe(NOW + 120 * S);
    expect(nextAttemptAt(2, NOW, "1", noJitter)).toBe(NOW + 5 * M);
    expect(nextAttemptAt(1, NOW, "0", noJitter)).toBe(NOW + 5 * S);
  });

  test("Retry-After as an HTTP date", () => {
    const at = new Date(NOW + 10 * M).toUTCString();
    expect(nextAttemptAt(1, NOW, at, noJitter)).toBe(NOW + 10 * M);
    const past = new Date(NOW - H).toUTCString();
    expect(nextAttemptAt(1, NOW, past, noJitter)).toBe(NOW + 5 * S);
  });

  test("Retry-After is capped at 24 hours and ignored when malformed", () => {
    expect(nextAttemptAt(1, NOW, String(7 * 24 * 3600), noJitter)).toBe(NOW + 24 * H);
    for (const bad of ["", "  ", "soon", "1.5", "-5", "5s", "1e3"]) {
      expect(nextAttemptAt(1, NOW, bad, noJitter)).toBe(NOW + 5 * S);
    }
  });

  test("parseRetryAfter", () => {
    expect(parseRetryAfter(null, NOW)).toBeNull();
    expect(parseRetryAfter(undefined, NOW)).toBeNull();
    expect(parseRetryAfter(" 30 ", NOW)).toBe(30 * S);
    expect(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", NOW)).toBe(0);
    expect(parseRetryAfter("garbage", NOW)).toBeNull();
  });

  test("attempt numbers start at 1", () => {
    expect(() => nextAttemptAt(0, NOW, null, noJitter)).toThrow();
    expect(() => nextAttemptAt(1.5, NOW, null, noJitter)).toThrow();
  });
});

describe("outcomeOf", () => {
  test("2xx only is success", () => {
    for (const s of [200, 201, 202, 204, 299]) expect(outcomeOf(s)).toBe("success");
  });
  test("410 disables at once", () => {
    expect(outcomeOf(410)).toBe("disable");
  });
  test("3xx is a failure (redirects are not followed)", () => {
    for (const s of [300, 301, 302, 304, 307, 308]) expect(outcomeOf(s)).toBe("failure");
  });
  test("everything else, and no answer at all, is retried", () => {
    for (const s of [100, 400, 401, 404, 408, 409, 429, 500, 502, 503, 504]) expect(outcomeOf(s)).toBe("retry");
    expect(outcomeOf(null)).toBe("retry");
  });
});

describe("five days of failure", () => {
  test("disables at exactly five days since the first failure after the last success", () => {
    expect(DISABLE_AFTER_FAILING_MS).toBe(5 * 24 * H);
    expect(failedTooLong(null, NOW)).toBe(false);
    expect(failedTooLong(NOW, NOW)).toBe(false);
    expect(failedTooLong(NOW - 5 * 24 * H + 1, NOW)).toBe(false);
    expect(failedTooLong(NOW - 5 * 24 * H, NOW)).toBe(true);
    expect(failedTooLong(NOW - 30 * 24 * H, NOW)).toBe(true);
  });
});
