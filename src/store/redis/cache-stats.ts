// The dashboard's cache footprint on Redis (docs/dashboard.md "Cache API"), read only: the project's
// live entries of its current generation found by a bounded SCAN (short calls, a cap on rounds), their
// stored bytes; past the cap, the generation's put counter (an upper bound) and the sampled mean size.
import type { RedisClient } from "bun";
import { redisCall, textFields } from "./redis-call.ts";

export interface CacheFootprintOptions {
  prefix?: string;
  /** SCAN calls at most (each visits about `count` names of the whole keyspace). */
  maxRounds?: number;
  count?: number;
  /** Entries whose sizes are read (the mean of these sizes the rest). */
  maxSized?: number;
  timeoutMs?: number;
}

export interface CacheFootprint {
  entries: number;
  bytes: number;
  /** False when the SCAN stopped at its cap (`entries` is then the put counter, an upper bound) or when
   * more entries were found than sized (`bytes` is then the sampled mean times `entries`). */
  exact: boolean;
}

/** A project id as a literal in a SCAN MATCH pattern. */
const glob = (s: string): string => s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

export async function redisCacheFootprint(client: RedisClient, projectId: string, options: CacheFootprintOptions = {}): Promise<CacheFootprint> {
  const base = `${options.prefix ?? "gw:"}ans:`;
  const timeoutMs = options.timeoutMs ?? 1_000;
  const gen = (await redisCall(client, "GET", [`${base}gen:${projectId}`], timeoutMs)) ?? "0";
  const scope = `${base}${projectId}:${String(gen)}:`;
  const pattern = `${glob(scope)}e:*`;
  const names = new Set<string>();
  let cursor = "0";
  let rounds = 0;
  do {
    const reply = await redisCall(client, "SCAN", [cursor, "MATCH", pattern, "COUNT", String(options.count ?? 1_000)], timeoutMs);
    if (!Array.isArray(reply) || reply.length !== 2) throw new Error("redis SCAN: unexpected reply");
    cursor = String(reply[0]);
    for (const name of textFields(reply[1], "SCAN")) names.add(name);
    rounds++;
  } while (cursor !== "0" && rounds < (options.maxRounds ?? 20));
  const sized = [...names].slice(0, options.maxSized ?? 2_000);
  // Sent together: Bun's client pipelines them on the one connection.
  const sizes = await Promise.all(sized.map((name) => redisCall(client, "HSTRLEN", [name, "e"], timeoutMs)));
  const sizedBytes = sizes.reduce<number>((sum, n, i) => sum + Number(n) + sized[i]!.length, 0);
  const complete = cursor === "0";
  const entries = complete ? names.size : Math.max(names.size, Number((await redisCall(client, "GET", [`${scope}n`], timeoutMs)) ?? 0));
  const mean = sized.length === 0 ? 0 : sizedBytes / sized.length;
  const bytes = sized.length === entries ? sizedBytes : Math.round(mean * entries);
  return { entries, bytes, exact: complete && sized.length === entries };
}
