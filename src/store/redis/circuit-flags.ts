// Circuit flags on Redis (docs/routing.md "Provider health"): one string per provider+model holding
// "until reason", expiring with its cooldown (PX), so a flag is never left raised by a dead instance.
import type { RedisClient } from "bun";
import type { CircuitFlag, CircuitFlagStore } from "../circuit-flags.ts";
import { REDIS_TIMEOUT_MS, RedisScript, redisCall } from "./redis-call.ts";

export interface RedisCircuitFlagsOptions {
  prefix?: string;
  timeoutMs?: number;
}

/** KEYS: the flag. ARGV: until, value, px. Keeps a later end already raised by another instance. */
const openScript = new RedisScript("circuit-open", `
local held = redis.call('GET', KEYS[1])
if held and tonumber(string.match(held, '^(%S+)')) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`);

export class RedisCircuitFlags implements CircuitFlagStore {
  private readonly prefix: string;
  private readonly timeoutMs: number;

  constructor(private readonly client: RedisClient, options: RedisCircuitFlagsOptions = {}) {
    this.prefix = `${options.prefix ?? "gw:"}cb:`;
    this.timeoutMs = options.timeoutMs ?? REDIS_TIMEOUT_MS;
  }

  async open(key: string, flag: CircuitFlag, now: number): Promise<void> {
    const px = Math.max(1, Math.ceil(flag.until - now));
    await openScript.run(this.client, [this.prefix + key], [String(flag.until), `${flag.until} ${flag.reason}`, String(px)], this.timeoutMs);
  }

  async raised(keys: readonly string[], now: number): Promise<Map<string, CircuitFlag>> {
    const out = new Map<string, CircuitFlag>();
    if (keys.length === 0) return out;
    const reply = await redisCall(this.client, "MGET", keys.map((k) => this.prefix + k), this.timeoutMs);
    if (!Array.isArray(reply)) return out;
    keys.forEach((key, i) => {
      const value: unknown = reply[i];
      if (typeof value !== "string") return;
      const space = value.indexOf(" ");
      const until = Number(value.slice(0, space));
      if (until > now) out.set(key, { until, reason: value.slice(space + 1) });
    });
    return out;
  }

  async close(key: string): Promise<void> {
    await redisCall(this.client, "DEL", [this.prefix + key], this.timeoutMs);
  }
}
