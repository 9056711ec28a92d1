// The rate-limit store's contract (docs/rate-limits.md), run against every implementation: the
// in-process GCRA table and the Redis one decide the same requests alike, with the same headers.
import { describe, expect, test } from "bun:test";
import type { Decision, Level, RateLimitStore } from "../../../src/store/rate-limit-store.ts";

export interface Clock {
  t: number;
}
/** A fresh store on its own keys, reading time from `clock.t` (epoch ms). */
export type MakeRateLimitStore = (clock: Clock) => RateLimitStore | Promise<RateLimitStore>;

const project = (rpm?: number, tpm?: number): Level => ({ id: "p:prj_1:live", name: "project", limits: { rpm, tpm } });
const key = (id: string, rpm?: number, tpm?: number): Level => ({ id: `k:${id}`, name: "key", limits: { rpm, tpm } });

async function setUp(make: MakeRateLimitStore) {
  const clock = { t: 1_700_000_000_000 };
  const store = await make(clock);
  let n = 0;
  const admit = async (levels: Level[], tokens = 0, exact?: () => number): Promise<Decision> => store.admit(`req_${n++}`, levels, { bound: tokens, exact });
  return { clock, store, admit, lastId: () => `req_${n - 1}` };
}

export function rateLimitContract(name: string, make: MakeRateLimitStore): void {
  describe(`${name}: rate-limit store contract`, () => {
    test("a burst of the whole limit is admitted, the next waits one interval, headers count down", async () => {
      const { admit } = await setUp(make);
      const seen: Decision[] = [];
      for (let i = 0; i < 3; i++) seen.push(await admit([project(3)]));
      expect(seen.map((d) => d.ok)).toEqual([true, true, true]);
      expect(seen.map((d) => d.headers["x-ratelimit-remaining-requests"])).toEqual(["2", "1", "0"]);
      expect(seen.map((d) => d.headers["x-ratelimit-reset-requests"])).toEqual(["20s", "40s", "1m0s"]);
      const refused = await admit([project(3)]);
      if (refused.ok) throw new Error("admitted past the limit");
      expect(refused.dimension).toBe("rpm");
      expect(refused.retryAfterMs).toBeCloseTo(20_000, 3);
      expect(refused.headers["x-ratelimit-remaining-requests"]).toBe("0");
    });

    test("recovery: one interval later one more fits, a minute later the whole burst", async () => {
      const { admit, clock } = await setUp(make);
      for (let i = 0; i < 3; i++) await admit([project(3)]);
      clock.t += 19_999;
      expect((await admit([project(3)])).ok).toBe(false);
      clock.t += 1;
      expect((await admit([project(3)])).ok).toBe(true);
      expect((await admit([project(3)])).ok).toBe(false);
      clock.t += 60_000;
      for (let i = 0; i < 3; i++) expect((await admit([project(3)])).ok).toBe(true);
    });

    test("uneven intervals (7 rpm) admit exactly 7 in a burst, and a steady rate at the limit always", async () => {
      const { admit, clock } = await setUp(make);
      for (let i = 0; i < 7; i++) expect((await admit([project(7)])).ok).toBe(true);
      expect((await admit([project(7)])).ok).toBe(false);
      clock.t += 60_000;
      for (let i = 0; i < 50; i++, clock.t += 60_000 / 7) expect((await admit([project(7)])).ok).toBe(true);
    });

    test("a refusal charges no level; the headers show the level that binds hardest", async () => {
      const { admit } = await setUp(make);
      for (let i = 0; i < 20; i++) await admit([project(3), key("a", 1)]);
      expect((await admit([project(3), key("b", 1)])).ok).toBe(true);
      const c = await admit([project(3), key("c", 1)]);
      expect(c.ok).toBe(true);
      const d = await admit([project(3), key("d", 1)]);
      expect(d.ok || d.level.name).toBe("project");
      const other: Level = { id: "p:prj_2:live", name: "project", limits: { rpm: 100, tpm: 1000 } };
      const h = (await admit([other, key("e", 2, 50_000)], 10)).headers;
      expect([h["x-ratelimit-limit-requests"], h["x-ratelimit-remaining-requests"]]).toEqual(["2", "1"]);
      expect([h["x-ratelimit-limit-tokens"], h["x-ratelimit-remaining-tokens"]]).toEqual(["1000", "990"]);
    });

    test("tokens: settle gives back what the answer did not use, once", async () => {
      const { admit, store, lastId } = await setUp(make);
      expect((await admit([project(undefined, 1000)], 600)).ok).toBe(true);
      const first = lastId();
      expect((await admit([project(undefined, 1000)], 600)).ok).toBe(false);
      await store.settle(first, 100);
      const again = await admit([project(undefined, 1000)], 600);
      expect(again.ok).toBe(true);
      expect(again.headers["x-ratelimit-remaining-tokens"]).toBe("300");
      await store.settle(first, 0);
      expect((await admit([project(undefined, 1000)], 301)).ok).toBe(false);
    });

    test("tokens: a larger answer is charged and the next requests wait for it", async () => {
      const { admit, store, lastId, clock } = await setUp(make);
      await admit([project(undefined, 1000)], 100);
      await store.settle(lastId(), 1500);
      const refused = await admit([project(undefined, 1000)], 100);
      if (refused.ok) throw new Error("admitted while the overrun is being paid back");
      expect(refused.retryAfterMs).toBeCloseTo(36_000, 3);
      clock.t += 36_000;
      expect((await admit([project(undefined, 1000)], 100)).ok).toBe(true);
    });

    test("tokens: the exact count is asked for only when the bound is refused; over a minute's allowance never retries", async () => {
      const { admit } = await setUp(make);
      let counted = 0;
      const exact = () => (counted++, 200);
      expect((await admit([project(undefined, 1000)], 500, exact)).ok).toBe(true);
      expect(counted).toBe(0);
      const second = await admit([project(undefined, 1000)], 900, exact);
      expect([second.ok, counted, second.headers["x-ratelimit-remaining-tokens"]]).toEqual([true, 1, "300"]);
      const refused = await admit([key("big", undefined, 1000)], 5000, () => 1001);
      if (refused.ok) throw new Error("admitted more than a minute's tokens");
      expect([refused.retryAfterMs, refused.estimate]).toEqual([null, 1001]);
    });
  });
}
