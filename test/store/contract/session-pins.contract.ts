// The session pin store's contract (docs/routing.md "Sessions"), run against the in-process
// SessionStore and Redis: a pin per project and session, turns counted, forgotten after an hour.
import { describe, expect, test } from "bun:test";
import type { SessionPin, SessionPinStore } from "../../../src/store/session-pins.ts";

/** The pin's public fields: an implementation may keep more beside them. */
const pinOf = (p: SessionPin | undefined) => (p === undefined ? undefined : { model: p.model, provider: p.provider, turns: p.turns });

export type MakeSessionPins = (clock: { t: number }) => SessionPinStore | Promise<SessionPinStore>;

export function sessionPinsContract(name: string, make: MakeSessionPins): void {
  describe(`${name}: session pin store contract`, () => {
    test("a turn pins the session; the next turn moves the pin and counts up", async () => {
      const clock = { t: 1_700_000_000_000 };
      const pins = await make(clock);
      expect(await pins.get("prj_1", "s1")).toBeUndefined();
      await pins.set("prj_1", "s1", "openai/gpt-4o-mini", "openai");
      expect(pinOf(await pins.get("prj_1", "s1"))).toEqual({ model: "openai/gpt-4o-mini", provider: "openai", turns: 1 });
      clock.t += 59 * 60_000;
      await pins.set("prj_1", "s1", "anthropic/claude-haiku", "anthropic");
      expect(pinOf(await pins.get("prj_1", "s1"))).toEqual({ model: "anthropic/claude-haiku", provider: "anthropic", turns: 2 });
    });

    test("sessions are per project", async () => {
      const pins = await make({ t: 1_700_000_000_000 });
      await pins.set("prj_1", "same", "m1", "openai");
      expect(await pins.get("prj_2", "same")).toBeUndefined();
      await pins.set("prj_2", "same", "m2", "google");
      expect((await pins.get("prj_1", "same"))?.model).toBe("m1");
    });

    test("a session unused for over an hour is forgotten and starts its turns again", async () => {
      const clock = { t: 1_700_000_000_000 };
      const pins = await make(clock);
      await pins.set("prj_1", "s2", "m1", "openai");
      clock.t += 60 * 60_000 + 1;
      expect(await pins.get("prj_1", "s2")).toBeUndefined();
      await pins.set("prj_1", "s2", "m2", "openai");
      expect((await pins.get("prj_1", "s2"))?.turns).toBe(1);
    });
  });
}
