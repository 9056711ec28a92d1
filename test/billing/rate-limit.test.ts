// The GCRA limiter with an injected clock (issue 9 item 5, docs/rate-limits.md): burst, steady rate,
// recovery, fairness between keys, token estimates settled, headers, and bounded memory.
import { describe, expect, test } from "bun:test";
import { RateLimiter, usedTokens, type Level } from "../../src/billing/rate-limit.ts";
import { formatDuration, retryAfterSeconds } from "../../src/billing/rate-limit-headers.ts";
import { rateLimitLevels } from "../../src/billing/rate-limit-policy.ts";

function clocked(options: ConstructorParameters<typeof RateLimiter>[0] = {}) {
  const clock = { t: 1_000_000 };
  const limiter = new RateLimiter({ now: () => clock.t, ...options });
  let n = 0;
  const admit = (levels: Level[], tokens = 0, exact?: () => number) => limiter.admit(`req_${n++}`, levels, { bound: tokens, exact });
  return { clock, limiter, admit, lastId: () => `req_${n - 1}` };
}
const project = (rpm?: number, tpm?: number): Level => ({ id: "p:prj_1:live", name: "project", limits: { rpm, tpm } });
const key = (id: string, rpm?: number, tpm?: number): Level => ({ id: `k:${id}`, name: "key", limits: { rpm, tpm } });

describe("docs/rate-limits.md: requests per minute", () => {
  test("a burst of the whole limit is admitted, the next waits one interval", () => {
    const { admit } = clocked();
    for (let i = 0; i < 3; i++) expect(admit([project(3)]).ok).toBe(true);
    const refused = admit([project(3)]);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.dimension).toBe("rpm");
    expect(refused.retryAfterMs).toBeCloseTo(20_000, 3);
    expect(refused.headers["x-ratelimit-remaining-requests"]).toBe("0");
    expect(refused.headers["x-ratelimit-reset-requests"]).toBe("1m0s");
  });

  test("recovery: one interval later one more fits, a full minute later the whole burst", () => {
    const { admit, clock } = clocked();
    for (let i = 0; i < 3; i++) admit([project(3)]);
    clock.t += 19_999;
    expect(admit([project(3)]).ok).toBe(false);
    clock.t += 1;
    expect(admit([project(3)]).ok).toBe(true);
    expect(admit([project(3)]).ok).toBe(false);
    clock.t += 60_000;
    for (let i = 0; i < 3; i++) expect(admit([project(3)]).ok).toBe(true);
  });

  test("a steady rate at the limit is always admitted; 10% faster is refused within a few minutes", () => {
    const steady = clocked();
    for (let i = 0; i < 1000; i++, steady.clock.t += 1000) expect(steady.admit([project(60)]).ok).toBe(true);
    const fast = clocked();
    let refused = 0;
    for (let i = 0; i < 1000; i++, fast.clock.t += 900) if (!fast.admit([project(60)]).ok) refused++;
    // 1000 requests over 899.1 s against 60/min: the first minute's burst of 60 plus one a second.
    expect(refused).toBe(1000 - (60 + 899));
  });

  test("headers count the remaining requests down and show when the allowance is whole again", () => {
    const { admit } = clocked();
    const seen = [0, 1, 2].map(() => admit([project(3)]).headers);
    expect(seen.map((h) => h["x-ratelimit-remaining-requests"])).toEqual(["2", "1", "0"]);
    expect(seen.map((h) => h["x-ratelimit-reset-requests"])).toEqual(["20s", "40s", "1m0s"]);
    expect(seen[0]!["x-ratelimit-limit-requests"]).toBe("3");
    expect(seen[0]!["x-ratelimit-limit-tokens"]).toBeUndefined();
  });

  test("uneven intervals (7 rpm) admit exactly 7 in a burst despite float steps", () => {
    const { admit } = clocked();
    for (let i = 0; i < 7; i++) expect(admit([project(7)]).ok).toBe(true);
    expect(admit([project(7)]).ok).toBe(false);
  });
});

describe("levels: project and keys", () => {
  test("fairness: a key at its own limit leaves the other keys their share of the project", () => {
    const { admit } = clocked();
    const levels = (k: string) => [project(10), key(k, 5)];
    let a = 0;
    for (let i = 0; i < 20; i++) if (admit(levels("a")).ok) a++;
    expect(a).toBe(5);
    let b = 0;
    for (let i = 0; i < 20; i++) if (admit(levels("b")).ok) b++;
    expect(b).toBe(5);
    // The project's 10 are used up now: a third key is refused by the project level.
    const c = admit(levels("c"));
    expect(c.ok || c.level.name).toBe("project");
  });

  test("a refusal charges no level: a key over its limit does not use up the project's allowance", () => {
    const { admit } = clocked();
    for (let i = 0; i < 50; i++) admit([project(3), key("a", 1)]);
    expect(admit([project(3), key("b", 1)]).ok).toBe(true);
    expect(admit([project(3), key("c", 1)]).ok).toBe(true);
  });

  test("the headers show the level that binds hardest", () => {
    const { admit } = clocked();
    const h = admit([project(100, 1000), key("a", 2, 50_000)], 10).headers;
    expect(h["x-ratelimit-limit-requests"]).toBe("2");
    expect(h["x-ratelimit-remaining-requests"]).toBe("1");
    expect(h["x-ratelimit-limit-tokens"]).toBe("1000");
    expect(h["x-ratelimit-remaining-tokens"]).toBe("990");
  });

  test("policy: project numbers per project and mode, per_key numbers per key", () => {
    const subject = { projectId: "prj_1", keyId: "key_1", test: false };
    expect(rateLimitLevels({ ...subject, policy: {} })).toBeNull();
    expect(rateLimitLevels({ ...subject, policy: { rate_limits: {} } })).toBeNull();
    expect(rateLimitLevels({ ...subject, policy: { rate_limits: { rpm: 5, per_key: { tpm: 100 } } } })).toEqual([
      { id: "p:prj_1:live", name: "project", limits: { rpm: 5, tpm: undefined } },
      { id: "k:key_1", name: "key", limits: { rpm: undefined, tpm: 100 } },
    ]);
    expect(rateLimitLevels({ ...subject, test: true, policy: { rate_limits: { rpm: 5 } } })![0]!.id).toBe("p:prj_1:test");
  });
});

describe("tokens per minute: estimates corrected at settle", () => {
  test("admits on the estimate, settle gives back what the answer did not use", () => {
    const { admit, limiter, lastId } = clocked();
    expect(admit([project(undefined, 1000)], 600).ok).toBe(true);
    const first = lastId();
    expect(admit([project(undefined, 1000)], 600).ok).toBe(false);
    limiter.settle(first, 100);
    const again = admit([project(undefined, 1000)], 600);
    expect(again.ok).toBe(true);
    expect(again.headers["x-ratelimit-remaining-tokens"]).toBe("300");
    limiter.settle(first, 0); // idempotent: a second settle changes nothing
    expect(admit([project(undefined, 1000)], 301).ok).toBe(false);
  });

  test("an answer larger than its estimate is charged: the next requests wait for it", () => {
    const { admit, limiter, lastId, clock } = clocked();
    admit([project(undefined, 1000)], 100);
    limiter.settle(lastId(), 1500);
    const refused = admit([project(undefined, 1000)], 100);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.retryAfterMs).toBeCloseTo(36_000, 3); // 1600 - 1000 tokens at 60 ms each
    clock.t += 36_000;
    expect(admit([project(undefined, 1000)], 100).ok).toBe(true);
  });

  test("the exact count is asked for only when the bound is refused, and admits on it", () => {
    const { admit } = clocked();
    let counted = 0;
    const exact = () => (counted++, 200);
    expect(admit([project(undefined, 1000)], 500, exact).ok).toBe(true);
    expect(counted).toBe(0);
    const second = admit([project(undefined, 1000)], 900, exact);
    expect(second.ok).toBe(true);
    expect(counted).toBe(1);
    expect(second.headers["x-ratelimit-remaining-tokens"]).toBe("300");
  });

  test("more tokens than a minute allows is refused with no retry time (waiting cannot help)", () => {
    const { admit } = clocked();
    const refused = admit([project(undefined, 1000)], 5000, () => 1001);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect([refused.retryAfterMs, refused.estimate]).toEqual([null, 1001]);
  });

  test("a cache hit used no model tokens", () => {
    expect(usedTokens(true, 500, 20)).toBe(0);
    expect(usedTokens(false, 500, 20)).toBe(520);
  });
});

describe("bounded memory", () => {
  test("idle cells are swept as the table grows: 300,000 one-off keys keep it small", () => {
    const { admit, limiter, clock } = clocked({ sweepFloor: 1024 });
    for (let i = 0; i < 300_000; i++) {
      admit([key(`k${i}`, 60)]);
      clock.t += 1; // each key's single request is forgotten a second later
    }
    expect(limiter.size.cells).toBeLessThanOrEqual(2048);
  });

  test("a cell with an unsettled request is kept; past the cap the oldest go; stale tickets expire", () => {
    const { admit, limiter, clock, lastId } = clocked({ sweepFloor: 8, maxCells: 100, ticketTtlMs: 60_000 });
    const busy = [key("busy", undefined, 1000)];
    admit(busy, 10);
    const ticket = lastId();
    for (let i = 0; i < 500; i++) {
      admit([key(`k${i}`, 1)]); // none idle: each waits a minute
      expect(limiter.size.cells).toBeLessThanOrEqual(201);
    }
    // The busy key's cell survived the cap: its 10 tokens are still counted.
    expect(admit(busy, 991).ok).toBe(false);
    clock.t += 61_000;
    for (let i = 0; i < 300; i++) admit([key(`late${i}`, 1)]);
    expect(limiter.size.tickets).toBe(0); // the never-settled ticket expired with its estimate
    limiter.settle(ticket, 0); // and a late settle is ignored
    expect(limiter.size.cells).toBeLessThanOrEqual(201);
  });
});

describe("header formats", () => {
  test("OpenAI's durations and a whole-second Retry-After, rounded up", () => {
    expect([0, 0.2, 120, 999.1, 1000, 1500, 20_000, 60_000, 61_250, 360_000, 3_600_000].map(formatDuration))
      .toEqual(["0s", "1ms", "120ms", "1s", "1s", "1.5s", "20s", "1m0s", "1m1.25s", "6m0s", "1h0m0s"]);
    expect([1, 999, 1000, 1001, 20_000].map(retryAfterSeconds)).toEqual([1, 1, 1, 2, 20]);
  });
});
