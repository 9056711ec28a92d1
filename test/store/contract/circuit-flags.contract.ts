// The shared circuit flag's contract (docs/routing.md "Provider health"), run against the
// in-process map and Redis: raised until its cooldown ends, never shortened, lowered by close.
import { describe, expect, test } from "bun:test";
import type { CircuitFlagStore } from "../../../src/store/circuit-flags.ts";

export type MakeCircuitFlags = () => CircuitFlagStore | Promise<CircuitFlagStore>;

export function circuitFlagsContract(name: string, make: MakeCircuitFlags): void {
  describe(`${name}: circuit flag store contract`, () => {
    const now = 1_700_000_000_000;
    const a = "openai/gpt-4o-mini";
    const b = "anthropic/claude-haiku";

    test("a raised flag is seen with its end and reason until the cooldown ends", async () => {
      const flags = await make();
      await flags.open(a, { until: now + 30_000, reason: "openai: HTTP 503 (3 in a row)" }, now);
      const seen = await flags.raised([a, b], now);
      expect([...seen.entries()]).toEqual([[a, { until: now + 30_000, reason: "openai: HTTP 503 (3 in a row)" }]]);
      expect((await flags.raised([a], now + 30_000)).size).toBe(0);
    });

    test("a shorter cooldown never shortens a raised flag; close lowers it", async () => {
      const flags = await make();
      await flags.open(b, { until: now + 60_000, reason: "long" }, now);
      await flags.open(b, { until: now + 10_000, reason: "short" }, now);
      expect((await flags.raised([b], now)).get(b)).toEqual({ until: now + 60_000, reason: "long" });
      await flags.close(b);
      expect((await flags.raised([b], now)).size).toBe(0);
      expect((await flags.raised([], now)).size).toBe(0);
    });
  });
}
