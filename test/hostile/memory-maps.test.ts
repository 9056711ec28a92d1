// Hostile input, memory (issue 14 item 3, docs/availability.md "Memory"): in-memory maps keyed by
// values a caller chooses stay bounded and forget stale entries, driven by seeded floods of
// distinct keys and injected clocks (no sleeps, no RSS).
import { describe, expect, test } from "bun:test";
import { RateLimiter } from "../../src/billing/rate-limit.ts";
import { ProviderHealth } from "../../src/routing/health.ts";
import { SessionStore } from "../../src/routing/sessions.ts";

let seed = 2026;
const next = (): string => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0).toString(36);
const HOUR = 3_600_000;

describe("sticky sessions (X-Gw-Session)", () => {
  test("a flood of distinct session ids is capped, the most recent kept", () => {
    const clock = { t: 0 };
    const sessions = new SessionStore(() => clock.t, 1000);
    let last = "";
    for (let i = 0; i < 20_000; i++) {
      last = `${next()}-${i}`;
      sessions.set("prj_a", last, "openai/gpt-4o-mini", "openai");
      clock.t += 1;
    }
    expect(sessions.size).toBe(1000);
    expect(sessions.get("prj_a", last)?.model).toBe("openai/gpt-4o-mini");
  });

  test("one project's flood of session ids evicts its own pins, not another project's", () => {
    const clock = { t: 0 };
    const sessions = new SessionStore(() => clock.t, 5000, 1000);
    sessions.set("prj_quiet", "support-chat", "anthropic/claude-3-5-haiku", "anthropic");
    for (let i = 0; i < 20_000; i++) {
      sessions.set("prj_flood", `${next()}-${i}`, "m", "p");
      clock.t += 1;
    }
    expect(sessions.size).toBe(1001);
    expect(sessions.get("prj_quiet", "support-chat")?.model).toBe("anthropic/claude-3-5-haiku");
  });

  test("pins unused for an hour are dropped as new ones arrive, not kept until the cap", () => {
    const clock = { t: 0 };
    const sessions = new SessionStore(() => clock.t, 50_000);
    for (let i = 0; i < 5000; i++) sessions.set("prj_a", `burst-${next()}`, "m", "p");
    expect(sessions.size).toBe(5000);
    clock.t += HOUR + 1;
    sessions.set("prj_a", "after-the-hour", "m", "p");
    expect(sessions.size).toBe(1);
    expect(sessions.get("prj_a", "after-the-hour")?.turns).toBe(1);
  });
});

describe("provider health", () => {
  test("outcomes for endlessly many models keep at most maxKeys circuits", () => {
    const health = new ProviderHealth({ maxKeys: 200, now: () => 0 });
    for (let i = 0; i < 10_000; i++) health.record("openai", `model-${next()}`, { ok: false, failureClass: "transient" });
    expect(health.snapshot().length).toBeLessThanOrEqual(200);
  });
});

describe("rate limits", () => {
  test("distinct limited keys beyond the cap keep the cell table bounded; unsettled admissions expire", () => {
    const clock = { t: 0 };
    const limiter = new RateLimiter({ now: () => clock.t, sweepFloor: 64, maxCells: 500, ticketTtlMs: 60_000 });
    // 50,000 admissions, 10 ms apart: 6,000 at most are younger than the ticket TTL, each keeping
    // its cell; the table is swept when it doubles, so it never holds more than twice that
    // (cells + tickets) plus the cap, where unbounded it would hold 100,000.
    for (let i = 0; i < 50_000; i++) {
      // Every admission is left unsettled, as if its request never reached the log.
      limiter.admit(`req-${i}`, [{ id: `k:${next()}`, name: "key", limits: { rpm: 1, tpm: 100_000 } }], { bound: 10 });
      clock.t += 10;
      const { cells, tickets } = limiter.size;
      expect(cells + tickets).toBeLessThanOrEqual(2 * (2 * 6_001 + 500) + 64);
    }
    clock.t += 120_000;
    limiter.admit("late", [{ id: "k:late", name: "key", limits: { rpm: 1 } }], { bound: 1 });
    for (let i = 0; i < 2000; i++) limiter.admit(`tail-${i}`, [{ id: `k:tail-${i}`, name: "key", limits: { rpm: 1 } }], { bound: 1 });
    expect(limiter.size.tickets).toBeLessThan(6_100);
    expect(limiter.size.cells).toBeLessThanOrEqual(2_100);
  });
});
