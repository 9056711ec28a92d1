// Long-lived services (src/lib/service.ts): started in their listed order, stopped in reverse, a
// failing start undoes the ones already started and a failing stop does not keep the rest running.
import { describe, expect, test } from "bun:test";
import { startServices, type Service } from "../../src/lib/service.ts";

function recorder() {
  const events: string[] = [];
  const errors: string[] = [];
  const service = (name: string, o: { failStart?: boolean; failStop?: boolean } = {}): Service => ({
    name,
    start() {
      if (o.failStart) throw new Error(`${name} cannot start`);
      events.push(`start ${name}`);
    },
    async stop() {
      events.push(`stop ${name}`);
      if (o.failStop) throw new Error(`${name} cannot stop`);
    },
  });
  return { events, errors, service, onError: (_err: unknown, name: string) => void errors.push(name) };
}

describe("docs/availability.md \"Shutdown\": services start in order and stop in reverse", () => {
  test("order, and a second stop is the first one", async () => {
    const r = recorder();
    const started = startServices([r.service("db"), r.service("log"), r.service("sweeper")], r.onError);
    await started.ready;
    await Promise.all([started.stop(), started.stop()]);
    expect(r.events).toEqual(["start db", "start log", "start sweeper", "stop sweeper", "stop log", "stop db"]);
  });

  test("a start that throws stops what already started, and the error goes on", async () => {
    const r = recorder();
    expect(() => startServices([r.service("db"), r.service("log"), r.service("bad", { failStart: true }), r.service("never")], r.onError)).toThrow("bad cannot start");
    await Bun.sleep(0);
    expect(r.events).toEqual(["start db", "start log", "stop log", "stop db"]);
  });

  test("a stop that throws is reported and the others still stop", async () => {
    const r = recorder();
    await startServices([r.service("db"), r.service("log", { failStop: true }), r.service("gc")], r.onError).stop();
    expect(r.events).toEqual(["start db", "start log", "start gc", "stop gc", "stop log", "stop db"]);
    expect(r.errors).toEqual(["log"]);
  });

  test("a start that returns a promise is awaited by ready; its rejection is reported", async () => {
    const r = recorder();
    const slow: Service = { name: "slow", start: () => Promise.reject(new Error("no")), stop: async () => {} };
    await startServices([slow], r.onError).ready;
    expect(r.errors).toEqual(["slow"]);
  });
});
