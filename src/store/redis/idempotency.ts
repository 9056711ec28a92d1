// Idempotency locks on Redis (docs/idempotency.md): the claim is one `SET NX PX` of the running
// record, so of two instances claiming at once exactly one wins; finish and release are scripts that
// act only while `requestId` still holds the running claim. Expiry is Redis's own (PX): no sweep.
import type { RedisClient } from "bun";
import type { IdempotencyResult, IdempotencyStore } from "../idempotency-store.ts";
import type { ClaimInput, IdempotencyRecord, IdempotencyState } from "../repos/idempotency.ts";
import { REDIS_TIMEOUT_MS, RedisFailure, RedisScript, redisCall } from "./redis-call.ts";

export interface RedisIdempotencyOptions {
  /** Epoch ms, for the PX of a finished record (its expiresAt minus now). */
  now?: () => number;
  prefix?: string;
  timeoutMs?: number;
}

/** The stored JSON: short names, the body as base64 (Redis strings are bytes, Bun's replies text). */
interface Stored {
  f: string; r: string; s: IdempotencyState; st: number | null; h: Record<string, string> | null; b: string | null; c: number; e: number;
}

const HOLDS = "local v = redis.call('GET', KEYS[1]) if not v then return 0 end local d = cjson.decode(v) if d.r ~= ARGV[1] or d.s ~= 'running' then return 0 end ";
/** The result keeps the claim's fingerprint, request and creation time, copied inside the script. */
const finishScript = new RedisScript("idempotency-finish",
  `${HOLDS}local n = cjson.decode(ARGV[2]) n.f = d.f n.r = d.r n.c = d.c redis.call('SET', KEYS[1], cjson.encode(n), 'PX', ARGV[3]) return 1`);
const releaseScript = new RedisScript("idempotency-release", `${HOLDS}redis.call('DEL', KEYS[1]) return 1`);

export class RedisIdempotencyStore implements IdempotencyStore {
  private readonly now: () => number;
  private readonly prefix: string;
  private readonly timeoutMs: number;

  constructor(private readonly client: RedisClient, options: RedisIdempotencyOptions = {}) {
    this.now = options.now ?? Date.now;
    this.prefix = `${options.prefix ?? "gw:"}idem:`;
    this.timeoutMs = options.timeoutMs ?? REDIS_TIMEOUT_MS;
  }

  async claim(c: ClaimInput): Promise<boolean> {
    const value: Stored = { f: c.fingerprint, r: c.requestId, s: "running", st: null, h: null, b: null, c: c.now, e: c.expiresAt };
    const reply = await redisCall(this.client, "SET", [this.keyOf(c.projectId, c.key), JSON.stringify(value), "NX", "PX", px(c.expiresAt - c.now)], this.timeoutMs);
    return reply === "OK";
  }

  async get(projectId: string, key: string): Promise<IdempotencyRecord | null> {
    const reply = await redisCall(this.client, "GET", [this.keyOf(projectId, key)], this.timeoutMs);
    if (reply === null) return null;
    if (typeof reply !== "string") throw new RedisFailure("error", "GET", "unexpected reply shape");
    const d = JSON.parse(reply) as Stored;
    return {
      projectId, key, fingerprint: d.f, requestId: d.r, state: d.s, status: d.st, headers: d.h,
      body: d.b === null ? null : new Uint8Array(Buffer.from(d.b, "base64")), createdAt: d.c, expiresAt: d.e,
    };
  }

  async finish(projectId: string, key: string, requestId: string, result: IdempotencyResult): Promise<boolean> {
    const value: Omit<Stored, "f" | "r" | "c"> = {
      s: result.state, st: result.status, h: result.headers,
      b: result.body === null ? null : Buffer.from(result.body).toString("base64"), e: result.expiresAt,
    };
    const reply = await finishScript.run(this.client, [this.keyOf(projectId, key)], [requestId, JSON.stringify(value), px(result.expiresAt - this.now())], this.timeoutMs);
    return reply === 1;
  }

  async release(projectId: string, key: string, requestId: string): Promise<boolean> {
    return (await releaseScript.run(this.client, [this.keyOf(projectId, key)], [requestId], this.timeoutMs)) === 1;
  }

  /** Project and key joined by a character a project id never holds, so no two pairs share a name. */
  private keyOf(projectId: string, key: string): string {
    return `${this.prefix}${projectId}\n${key}`;
  }
}

/** PX must be a positive integer: an already expired record lives one millisecond. */
const px = (ms: number): string => String(Math.max(1, Math.ceil(ms)));
