// Session pins and circuit flags: each contract against its in-process store and a real
// redis-server (test/helpers/services.ts), plus sharing across instances and TTLs on Redis.
import { describe, expect, test } from "bun:test";
import { SessionStore } from "../../src/routing/sessions.ts";
import { LocalCircuitFlags } from "../../src/store/circuit-flags.ts";
import { RedisCircuitFlags } from "../../src/store/redis/circuit-flags.ts";
import { RedisFailure } from "../../src/store/redis/redis-call.ts";
import { RedisSessionPins } from "../../src/store/redis/session-pins.ts";
import type { SessionPinStore } from "../../src/store/session-pins.ts";
import { redisForFile } from "../helpers/services.ts";
import { circuitFlagsContract } from "./contract/circuit-flags.contract.ts";
import { sessionPinsContract } from "./contract/session-pins.contract.ts";

const { client, keySpace } = redisForFile();

// The routing layer's store satisfies the interface as it is.
sessionPinsContract("in process", (clock): SessionPinStore => new SessionStore(() => clock.t));
sessionPinsContract("redis", (clock) => new RedisSessionPins(client(), { now: () => clock.t, prefix: keySpace("t") }));
circuitFlagsContract("in process", () => new LocalCircuitFlags());
circuitFlagsContract("redis", () => new RedisCircuitFlags(client(), { prefix: keySpace("t") }));

describe("redis: fast state shared across instances", () => {
  test("a session pinned through one instance sticks on another; its key expires an hour after the turn", async () => {
    const now = Date.now();
    const prefix = keySpace("shared");
    const c = client();
    const [a, b] = [c, client()].map((x) => new RedisSessionPins(x, { now: () => now, prefix }));
    await a!.set("prj_1", "s", "m1", "openai");
    expect(await b!.get("prj_1", "s")).toEqual({ model: "m1", provider: "openai", turns: 1 });
    const ttl = Number(await c.send("PTTL", [`${prefix}sess:prj_1\u0000s`]));
    expect(ttl).toBeGreaterThan(59 * 60_000);
    expect(ttl).toBeLessThanOrEqual(60 * 60_000);
  });

  test("a circuit opened on one instance is seen on the others, and its key expires with the cooldown", async () => {
    const now = Date.now();
    const prefix = keySpace("cb");
    const c = client();
    const [a, b, d] = [c, client(), client()].map((x) => new RedisCircuitFlags(x, { prefix }));
    await a!.open("openai/gpt-4o", { until: now + 20_000, reason: "openai: HTTP 500" }, now);
    expect((await b!.raised(["openai/gpt-4o"], now)).get("openai/gpt-4o")?.reason).toBe("openai: HTTP 500");
    const ttl = Number(await c.send("PTTL", [`${prefix}cb:openai/gpt-4o`]));
    expect(ttl).toBeGreaterThan(15_000);
    expect(ttl).toBeLessThanOrEqual(20_000);
    await d!.close("openai/gpt-4o");
    expect((await a!.raised(["openai/gpt-4o"], now)).size).toBe(0);
  });

  test("Redis unreachable: a read fails as a RedisFailure within its bound", async () => {
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = probe.port;
    probe.stop(true);
    const flags = new RedisCircuitFlags(client(`redis://127.0.0.1:${port}`), { timeoutMs: 200 });
    expect(await flags.raised(["x"], Date.now()).catch((err: unknown) => err)).toBeInstanceOf(RedisFailure);
  });
});
