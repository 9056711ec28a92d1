// GW_DATABASE_URL and GW_REDIS_URL (docs/scale-out.md "Configuration"): checked at start with their
// passwords never printed, and the modes they ask for: neither (single-node) or both (multi-instance).

/** `text` with the URL's password (in the user part or a `password=` parameter) replaced by `***`. */
export function redactUrl(text: string): string {
  const scheme = text.indexOf("://");
  const at = text.lastIndexOf("@");
  let out = text;
  if (at >= 0) {
    const start = scheme >= 0 ? scheme + 3 : 0;
    const user = text.slice(start, at);
    const colon = user.indexOf(":");
    // Without a scheme there is no telling user from password: all of it goes.
    out = text.slice(0, start) + (scheme >= 0 && colon >= 0 ? `${user.slice(0, colon)}:***` : scheme >= 0 ? user : "***") + text.slice(at);
  }
  return out.replace(/([?&]password=)[^&#]*/gi, "$1***");
}

function parseServiceUrl(name: string, text: string | undefined, schemes: readonly string[], example: string, path: RegExp): string | null {
  if (!text) return null;
  const url = URL.canParse(text) ? new URL(text) : null;
  if (url && schemes.includes(url.protocol) && url.hostname !== "" && path.test(url.pathname)) return text;
  const wanted = schemes.map((s) => `${s}//`).join(" or ");
  throw new Error(`Invalid ${name} "${redactUrl(text)}": expected a ${wanted} URL such as ${example}.`);
}

/** `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (or `postgresql://`); unset or empty: null. */
export const parseDatabaseUrl = (text: string | undefined): string | null =>
  parseServiceUrl("GW_DATABASE_URL", text, ["postgres:", "postgresql:"], "postgres://gw:PASSWORD@db.internal:5432/gw", /^(?:\/[^/]*)?$/);

/** `redis://[USER]:PASSWORD@HOST:PORT/DB` (or `rediss://` for TLS); unset or empty: null. */
export const parseRedisUrl = (text: string | undefined): string | null =>
  parseServiceUrl("GW_REDIS_URL", text, ["redis:", "rediss:"], "redis://:PASSWORD@redis.internal:6379/0", /^(?:\/\d*)?$/);

/** What lives only in this process or its SQLite file when one of the two is missing. */
const PER_INSTANCE = {
  redis: "rate limits, idempotency locks, the exact cache and stickiness sessions would stay in this process, so each instance would allow the full limit and cache on its own",
  database: "keys, credits and holds, budgets, idempotency results and the request log would stay in this instance's SQLite file, so each instance would keep its own balance and keys",
};

export type StateMode = "single-node" | "multi-instance";

/** Neither set: single-node mode, as always. Exactly one set: refused, naming what would silently
 * be per-instance. Both set: the multi-instance mode, which also needs GW_SECRET_KEY: every
 * instance must open the provider keys the others sealed (docs/scale-out.md "Modes"). */
export function checkStateMode(databaseUrl: string | null, redisUrl: string | null, secretKey: string | null = "set"): StateMode {
  if (databaseUrl === null && redisUrl === null) return "single-node";
  const guide = "Set both for several instances, or neither for single-node mode on SQLite (docs/scale-out.md).";
  if (redisUrl === null) throw new Error(`GW_DATABASE_URL is set but GW_REDIS_URL is not: ${PER_INSTANCE.redis}. ${guide}`);
  if (databaseUrl === null) throw new Error(`GW_REDIS_URL is set but GW_DATABASE_URL is not: ${PER_INSTANCE.database}. ${guide}`);
  if (!secretKey) throw new Error("GW_DATABASE_URL and GW_REDIS_URL ask for the multi-instance mode, which needs GW_SECRET_KEY set to the same value on every instance: each would otherwise seal provider keys with a key file of its own that the others cannot open (docs/scale-out.md \"Modes\").");
  return "multi-instance";
}

/** GW_REDIS_FAILURE: while Redis fails, rate limits admit this instance's share (`open`, the
 * default) or refuse with 429 (`closed`) (docs/scale-out.md "Redis"). */
export function parseRedisFailure(text: string | undefined): "open" | "closed" {
  if (!text || text === "open") return "open";
  if (text === "closed") return "closed";
  throw new Error(`Invalid GW_REDIS_FAILURE "${text}": expected open (rate limits admit this instance's share while Redis fails; the default) or closed (they refuse with 429).`);
}
