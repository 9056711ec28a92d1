// Every Redis call is bounded (docs/scale-out.md "Redis"): a time-out or an error becomes one typed
// RedisFailure, which the caller turns into fail-open or fail-closed; nothing here retries or waits
// longer. Scripts run by EVALSHA and fall back to EVAL once when the server has not seen them.
import type { RedisClient } from "bun";

export type RedisFailureKind = "timeout" | "error";

export class RedisFailure extends Error {
  constructor(readonly kind: RedisFailureKind, readonly operation: string, cause?: unknown) {
    super(kind === "timeout" ? `redis ${operation}: no answer in time` : `redis ${operation}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "RedisFailure";
  }
}

/** Says an outage once: `fail()` is true for the first failure after a success, so a caller on the
 * request path logs "Redis unavailable" once, not once per request. While down, `skip()` lets one
 * call through per retry interval to find Redis back, so a Redis that hangs (each call timing out)
 * does not add its time-out to every request. */
export class OutageLatch {
  private down = false;
  private probeAt = 0;

  constructor(private readonly retryMs = 500) {}

  get isDown(): boolean {
    return this.down;
  }

  fail(): boolean {
    this.probeAt = performance.now() + this.retryMs;
    if (this.down) return false;
    this.down = true;
    return true;
  }

  ok(): void {
    this.down = false;
  }

  skip(): boolean {
    if (!this.down) return false;
    const now = performance.now();
    if (now < this.probeAt) return true;
    this.probeAt = now + this.retryMs;
    return false;
  }
}

/** The default bound of one call: short, since it sits on the request path. */
export const REDIS_TIMEOUT_MS = 250;

/** Sends one command; rejects with a RedisFailure after `timeoutMs` or on any error reply. */
export function redisCall(client: RedisClient, command: string, args: string[], timeoutMs = REDIS_TIMEOUT_MS): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisFailure("timeout", command)), timeoutMs);
  });
  const sent: Promise<unknown> = client.send(command, args).catch((err: unknown) => {
    throw new RedisFailure("error", command, err);
  });
  return Promise.race([sent, late]).finally(() => clearTimeout(timer));
}

/** A Lua script known by its SHA-1: EVALSHA first, EVAL once on NOSCRIPT (a restarted server). */
export class RedisScript {
  readonly sha: string;

  constructor(readonly name: string, readonly source: string) {
    this.sha = new Bun.CryptoHasher("sha1").update(source).digest("hex");
  }

  async run(client: RedisClient, keys: readonly string[], args: readonly string[], timeoutMs = REDIS_TIMEOUT_MS): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await redisCall(client, "EVALSHA", [this.sha, ...tail], timeoutMs);
    } catch (err) {
      if (!(err instanceof RedisFailure) || !isNoScript(err.cause)) throw err;
      return redisCall(client, "EVAL", [this.source, ...tail], timeoutMs);
    }
  }
}

const isNoScript = (err: unknown): boolean => err instanceof Error && err.message.includes("NOSCRIPT");

/** A Lua reply as text fields (scripts return numbers as %.17g strings: Redis truncates Lua numbers). */
export function textFields(reply: unknown, operation: string): string[] {
  if (!Array.isArray(reply) || !reply.every((v) => typeof v === "string")) throw new RedisFailure("error", operation, "unexpected reply shape");
  return reply;
}
