// Session pins on Redis (docs/routing.md "Sessions"): one hash per project and session, written by
// one script (turns counted up) and expiring an hour after its last turn, so memory stays bounded
// without the in-process store's per-project cap.
import type { RedisClient } from "bun";
import { SESSION_TTL_MS, type SessionPin, type SessionPinStore } from "../session-pins.ts";
import { REDIS_TIMEOUT_MS, RedisScript, redisCall } from "./redis-call.ts";

export interface RedisSessionPinsOptions {
  /** Epoch ms: a pin last set longer ago than the TTL is gone (Redis's PX bounds it too). */
  now?: () => number;
  prefix?: string;
  timeoutMs?: number;
}

/** KEYS: the pin. ARGV: model, provider, seen, ttl, now. An expired pin starts its turns again. */
const setScript = new RedisScript("session-set", `
local seen = tonumber(redis.call('HGET', KEYS[1], 's') or '0')
local turns = 1
if tonumber(ARGV[5]) - seen <= tonumber(ARGV[4]) then turns = tonumber(redis.call('HGET', KEYS[1], 'n') or '0') + 1 end
redis.call('HSET', KEYS[1], 'm', ARGV[1], 'p', ARGV[2], 's', ARGV[3], 'n', turns)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return turns`);

export class RedisSessionPins implements SessionPinStore {
  private readonly now: () => number;
  private readonly prefix: string;
  private readonly timeoutMs: number;

  constructor(private readonly client: RedisClient, options: RedisSessionPinsOptions = {}) {
    this.now = options.now ?? Date.now;
    this.prefix = `${options.prefix ?? "gw:"}sess:`;
    this.timeoutMs = options.timeoutMs ?? REDIS_TIMEOUT_MS;
  }

  async get(projectId: string, sessionId: string): Promise<SessionPin | undefined> {
    const reply = await redisCall(this.client, "HMGET", [this.keyOf(projectId, sessionId), "m", "p", "n", "s"], this.timeoutMs);
    if (!Array.isArray(reply)) return undefined;
    const [model, provider, turns, seen]: unknown[] = reply;
    if (typeof model !== "string" || typeof provider !== "string") return undefined;
    if (this.now() - Number(seen) > SESSION_TTL_MS) return undefined;
    return { model, provider, turns: Number(turns) };
  }

  async set(projectId: string, sessionId: string, model: string, provider: string): Promise<void> {
    const now = String(this.now());
    await setScript.run(this.client, [this.keyOf(projectId, sessionId)], [model, provider, now, String(SESSION_TTL_MS), now], this.timeoutMs);
  }

  /** Project and session joined by NUL, as the in-process store does: no two pairs share a name. */
  private keyOf(projectId: string, sessionId: string): string {
    return `${this.prefix}${projectId}\u0000${sessionId}`;
  }
}
