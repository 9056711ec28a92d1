// Passive provider health (issue 5 item 6): circuits per provider and provider/model, driven by an
// injected clock (no sleeps).
import { describe, expect, test } from "bun:test";
import { ProviderHealth } from "../../src/routing/health.ts";
import type { HealthOptions } from "../../src/routing/health.ts";

function setup(options: HealthOptions = {}) {
  const clock = { t: 1_000_000 };
  const health = new ProviderHealth({ now: () => clock.t, ...options });
  const fail = (model: string, failureClass = "transient", probe = false, provider = "openai") =>
    health.record(provider, model, { ok: false, failureClass }, probe);
  const ok = (model: string, latencyMs = 100, probe = false, provider = "openai") =>
    health.record(provider, model, { ok: true, latencyMs }, probe);
  const state = (key: string) => health.snapshot().find((s) => s.key === key)?.state;
  return { clock, health, fail, ok, state };
}

/** Opens openai (and openai/gpt-4o) with five consecutive transient failures at the current time. */
function openProvider(h: ReturnType<typeof setup>) {
  for (let i = 0; i < 5; i++) h.fail("gpt-4o");
}

describe("closed by default", () => {
  test("an unknown provider/model is admitted, scores 1, has no latency and no keys", () => {
    const { health } = setup();
    expect(health.admit("openai", "gpt-4o")).toEqual({ ok: true, probe: false });
    expect(health.score("openai", "gpt-4o")).toBe(1);
    expect(health.expectedLatencyMs("openai", "gpt-4o")).toBeNull();
    expect(health.snapshot()).toEqual([]);
  });
});

describe("opening", () => {
  test("opens after openAfterFailures consecutive failures; a success resets the run", () => {
    const h = setup();
    for (let i = 0; i < 4; i++) h.fail("gpt-4o");
    h.ok("gpt-4o");
    for (let i = 0; i < 4; i++) h.fail("gpt-4o");
    expect(h.health.admit("openai", "gpt-4o").ok).toBe(true);
    h.fail("gpt-4o");
    const admit = h.health.admit("openai", "gpt-4o");
    expect(admit.ok).toBe(false);
    if (!admit.ok) expect(admit.reason).toContain("openai");
    expect(h.state("openai")).toBe("open");
    expect(h.state("openai/gpt-4o")).toBe("open");
  });

  test("opens on the EWMA error rate only once minSamples outcomes are in", () => {
    const h = setup({ openAfterFailures: 100, minSamples: 10, openErrorRate: 0.5, halfLife: 0.2 });
    for (let i = 0; i < 9; i++) h.fail("gpt-4o");
    expect(h.state("openai")).toBe("closed"); // error rate 0.87, but only 9 samples
    h.fail("gpt-4o");
    expect(h.state("openai")).toBe("open");
  });

  test("interleaved outcomes: 2 of 3 failing opens, 1 of 3 does not", () => {
    const bad = setup({ openAfterFailures: 100 });
    const good = setup({ openAfterFailures: 100 });
    for (let i = 0; i < 10; i++) {
      bad.ok("m"); bad.fail("m"); bad.fail("m");
      good.ok("m"); good.ok("m"); good.fail("m");
    }
    expect(bad.state("openai")).toBe("open");
    expect(good.state("openai")).toBe("closed");
    const rate = good.health.snapshot()[0]!.errorRate;
    expect(rate).toBeGreaterThan(0.2);
    expect(rate).toBeLessThan(0.5);
  });

  test("caller, context_length, content_filter and unknown classes neither open nor reset", () => {
    const h = setup();
    for (let i = 0; i < 20; i++) {
      for (const c of ["caller", "context_length", "content_filter", "something_new"]) h.fail("gpt-4o", c);
    }
    expect(h.health.snapshot()).toEqual([]);
    for (let i = 0; i < 4; i++) h.fail("gpt-4o");
    h.fail("gpt-4o", "caller");
    expect(h.health.admit("openai", "gpt-4o").ok).toBe(true);
    h.fail("gpt-4o", "rate_limit");
    expect(h.health.admit("openai", "gpt-4o").ok).toBe(false);
  });

  test("credential and timeout count against the provider", () => {
    const h = setup();
    for (const c of ["credential", "timeout", "credential", "timeout", "credential"]) h.fail("gpt-4o", c);
    expect(h.state("openai")).toBe("open");
  });
});

describe("open and half-open", () => {
  test("open rejects with a reason until the cooldown, then the next admit is a probe", () => {
    const h = setup({ cooldownMs: 30_000 });
    openProvider(h);
    h.clock.t += 29_999;
    const rejected = h.health.admit("openai", "gpt-4o");
    expect(rejected).toEqual({ ok: false, reason: "openai: circuit open" });
    expect(h.state("openai")).toBe("open");
    h.clock.t += 1;
    expect(h.state("openai")).toBe("half_open");
    expect(h.health.admit("openai", "gpt-4o")).toEqual({ ok: true, probe: true });
  });

  test("half-open admits exactly halfOpenProbes concurrent probes; a neutral report frees one", () => {
    const h = setup({ halfOpenProbes: 2 });
    openProvider(h);
    h.clock.t += 30_000;
    expect(h.health.admit("openai", "gpt-4o")).toEqual({ ok: true, probe: true });
    expect(h.health.admit("openai", "gpt-4o-mini")).toEqual({ ok: true, probe: true });
    const third = h.health.admit("openai", "gpt-4o");
    expect(third.ok).toBe(false);
    if (!third.ok) expect(third.reason).toContain("half-open");
    h.fail("gpt-4o", "caller", true);
    expect(h.state("openai")).toBe("half_open");
    expect(h.health.admit("openai", "gpt-4o")).toEqual({ ok: true, probe: true });
    expect(h.health.admit("openai", "gpt-4o").ok).toBe(false);
  });

  test("a probe success closes and resets counters and cooldown", () => {
    const h = setup();
    openProvider(h);
    h.clock.t += 30_000;
    expect(h.health.admit("openai", "gpt-4o").ok).toBe(true);
    h.ok("gpt-4o", 100, true);
    const [provider, model] = h.health.snapshot();
    expect(provider).toMatchObject({ key: "openai", state: "closed", errorRate: 0, samples: 0, consecutiveFailures: 0, openedAt: null });
    expect(model).toMatchObject({ key: "openai/gpt-4o", state: "closed", errorRate: 0, samples: 0, consecutiveFailures: 0 });
    expect(h.health.admit("openai", "gpt-4o")).toEqual({ ok: true, probe: false });
    openProvider(h);
    h.clock.t += 30_000;
    expect(h.health.admit("openai", "gpt-4o").ok).toBe(true); // cooldown back to 30s
  });

  test("a probe failure re-opens with the cooldown doubled up to the cap", () => {
    const h = setup({ cooldownMs: 30_000, maxCooldownMs: 200_000 });
    openProvider(h);
    h.clock.t += 30_000;
    for (const cooldown of [60_000, 120_000, 200_000, 200_000]) {
      expect(h.health.admit("openai", "gpt-4o")).toEqual({ ok: true, probe: true });
      h.fail("gpt-4o", "transient", true);
      expect(h.state("openai")).toBe("open");
      h.clock.t += cooldown - 1;
      expect(h.health.admit("openai", "gpt-4o").ok).toBe(false);
      h.clock.t += 1;
    }
    expect(h.health.admit("openai", "gpt-4o").ok).toBe(true);
  });

  test("outcomes of attempts admitted before the key opened change no state", () => {
    const h = setup();
    openProvider(h);
    h.ok("gpt-4o", 50); // not a probe: stale
    expect(h.state("openai")).toBe("open");
    h.clock.t += 30_000;
    expect(h.health.admit("openai", "gpt-4o").ok).toBe(true);
    h.ok("gpt-4o-mini", 50); // not the probe
    expect(h.state("openai")).toBe("half_open");
    expect(h.health.admit("openai", "gpt-4o").ok).toBe(false);
  });

  test("a probe never reported frees its slot after one cooldown", () => {
    const h = setup();
    openProvider(h);
    h.clock.t += 30_000;
    expect(h.health.admit("openai", "gpt-4o").ok).toBe(true);
    h.clock.t += 29_999;
    expect(h.health.admit("openai", "gpt-4o").ok).toBe(false);
    h.clock.t += 1;
    expect(h.health.admit("openai", "gpt-4o")).toEqual({ ok: true, probe: true });
  });
});

describe("provider and model keys", () => {
  test("model_gone opens only that model", () => {
    const h = setup();
    for (let i = 0; i < 5; i++) h.fail("gpt-4o", "model_gone");
    const admit = h.health.admit("openai", "gpt-4o");
    expect(admit).toEqual({ ok: false, reason: "openai/gpt-4o: circuit open" });
    expect(h.health.admit("openai", "gpt-4o-mini")).toEqual({ ok: true, probe: false });
    expect(h.state("openai")).toBeUndefined();
    expect(h.health.score("openai", "gpt-4o-mini")).toBe(1);
  });

  test("an open provider excludes all its models, even unseen ones, and no other provider", () => {
    const h = setup();
    for (const m of ["a", "b", "c", "a", "b"]) h.fail(m);
    expect(h.state("openai/a")).toBe("closed");
    for (const m of ["a", "c", "never-seen"]) {
      expect(h.health.admit("openai", m)).toEqual({ ok: false, reason: "openai: circuit open" });
    }
    expect(h.health.admit("anthropic", "claude").ok).toBe(true);
  });

  test("a model rejection does not take the provider's probe slot", () => {
    const h = setup();
    openProvider(h); // provider opens at t0
    h.clock.t += 5_000;
    for (let i = 0; i < 5; i++) h.fail("gpt-5", "model_gone"); // model opens at t0+5s
    h.clock.t += 25_000; // provider half-open, gpt-5 still open
    expect(h.health.admit("openai", "gpt-5")).toEqual({ ok: false, reason: "openai/gpt-5: circuit open" });
    expect(h.health.admit("openai", "gpt-4o-mini")).toEqual({ ok: true, probe: true });
  });

  test("bare and catalog-style model ids name the same key", () => {
    const h = setup();
    h.ok("gpt-4o", 100);
    h.ok("openai/gpt-4o", 200);
    expect(h.health.snapshot().map((s) => s.key)).toEqual(["openai", "openai/gpt-4o"]);
    expect(h.health.expectedLatencyMs("openai", "openai/gpt-4o")).toBe(120);
  });

  test("memory stays bounded: the oldest model key is dropped past maxKeys", () => {
    const h = setup({ maxKeys: 4 });
    for (const m of ["a", "b", "c", "d"]) h.ok(m);
    expect(h.health.snapshot().map((s) => s.key)).toEqual(["openai", "openai/b", "openai/c", "openai/d"]);
  });
});

describe("latency and score", () => {
  test("latency is an EWMA of successful attempts only, per model", () => {
    const h = setup({ halfLife: 0.2 });
    h.ok("gpt-4o", 100);
    expect(h.health.expectedLatencyMs("openai", "gpt-4o")).toBe(100);
    h.ok("gpt-4o", 200);
    expect(h.health.expectedLatencyMs("openai", "gpt-4o")).toBeCloseTo(120, 10);
    h.fail("gpt-4o", "timeout");
    expect(h.health.expectedLatencyMs("openai", "gpt-4o")).toBeCloseTo(120, 10);
    expect(h.health.expectedLatencyMs("openai", "gpt-4o-mini")).toBeNull();
  });

  test("score: 1 - error rate per key, multiplied; 0 open; halved half-open", () => {
    const h = setup({ halfLife: 0.2 });
    h.fail("gpt-4o");
    expect(h.health.score("openai", "gpt-4o")).toBeCloseTo(0.8 * 0.8, 10);
    expect(h.health.score("openai", "gpt-4o-mini")).toBeCloseTo(0.8, 10);
    h.ok("gpt-4o");
    expect(h.health.score("openai", "gpt-4o")).toBeCloseTo(0.84 * 0.84, 10);
    for (let i = 0; i < 5; i++) h.fail("gpt-4o");
    expect(h.health.score("openai", "gpt-4o")).toBe(0);
    expect(h.health.score("openai", "gpt-4o-mini")).toBe(0);
    h.clock.t += 30_000;
    const [p, m] = h.health.snapshot();
    expect(h.health.score("openai", "gpt-4o")).toBeCloseTo(((1 - p!.errorRate) / 2) * ((1 - m!.errorRate) / 2), 10);
  });
});

describe("snapshot", () => {
  test("one row per key, providers first, with the documented fields", () => {
    const h = setup();
    h.ok("gpt-4o", 80);
    for (let i = 0; i < 5; i++) h.fail("claude-sonnet-4-5", "model_gone", false, "anthropic");
    expect(h.health.snapshot()).toEqual([
      { key: "openai", state: "closed", errorRate: 0, latencyMs: 80, samples: 1, consecutiveFailures: 0, openedAt: null },
      { key: "openai/gpt-4o", state: "closed", errorRate: 0, latencyMs: 80, samples: 1, consecutiveFailures: 0, openedAt: null },
      {
        key: "anthropic/claude-sonnet-4-5", state: "open", errorRate: expect.closeTo(1 - 0.8 ** 5, 10),
        latencyMs: null, samples: 5, consecutiveFailures: 5, openedAt: 1_000_000,
      },
    ]);
  });

  test("options are validated", () => {
    expect(() => new ProviderHealth({ halfLife: 2 })).toThrow(RangeError);
    expect(() => new ProviderHealth({ halfOpenProbes: 0 })).toThrow(RangeError);
    expect(() => new ProviderHealth({ openAfterFailures: 1.5 })).toThrow(RangeError);
  });
});
