// The shared fast state on one Redis (docs/scale-out.md "Redis"), built from one Bun RedisClient by the
// composition root once GW_REDIS_URL is set. Every store's calls are bounded and fail as RedisFailure.
import type { RedisClient } from "bun";
import type { LimitHeaders } from "../rate-limit-store.ts";
import { RedisAnswerStore } from "./answers.ts";
import { RedisCircuitFlags } from "./circuit-flags.ts";
import { RedisIdempotencyStore } from "./idempotency.ts";
import { RedisRateLimiter } from "./rate-limit.ts";
import { RedisSessionPins } from "./session-pins.ts";

export interface RedisStoresOptions {
  /** billing/rate-limit-headers.ts limitHeaders (store sits below billing, so it is passed in). */
  limitHeaders: LimitHeaders;
  /** Epoch ms (deps.clock.now); every instance's clock should agree (NTP). */
  now?: () => number;
  /** Prefix of every key, so several deployments can share one Redis (default "gw:"). */
  prefix?: string;
  /** Bound of one Redis call (default 250 ms). */
  timeoutMs?: number;
  onError?: (err: unknown, context: string) => void;
}

export interface RedisStores {
  rateLimits: RedisRateLimiter;
  idempotency: RedisIdempotencyStore;
  answers: RedisAnswerStore;
  circuitFlags: RedisCircuitFlags;
  sessions: RedisSessionPins;
}

export function redisStores(client: RedisClient, options: RedisStoresOptions): RedisStores {
  const { now, prefix, timeoutMs } = options;
  return {
    rateLimits: new RedisRateLimiter(client, { now, prefix, timeoutMs, headers: options.limitHeaders }),
    idempotency: new RedisIdempotencyStore(client, { now, prefix, timeoutMs }),
    answers: new RedisAnswerStore(client, { now, prefix, timeoutMs, onError: options.onError }),
    circuitFlags: new RedisCircuitFlags(client, { prefix, timeoutMs }),
    sessions: new RedisSessionPins(client, { now, prefix, timeoutMs }),
  };
}
