// The semantic cache's feed between instances (docs/scale-out.md "Semantic cache"): each answer stored
// with a semantic question, each removal and each emptied project is one entry of a capped Redis stream;
// every instance reads it on from where it left off, on a connection of its own (XREAD BLOCK holds it).
import type { RedisClient } from "bun";
import { REDIS_TIMEOUT_MS, redisCall } from "./redis-call.ts";

/** One stored answer's question: `id` is the answer store's id (ans:id:<id>), `from` the storing instance. */
export interface SemanticStreamEntry {
  id: number;
  project: string;
  partition: string;
  question: string;
  /** Epoch ms: the answer's expiresAt. */
  expires: number;
  from: string;
}

/** What the stream carries: a question to index, answers removed (replaced, invalidated by tag), or a
 * project emptied. Each names the instance that wrote it. */
export type SemanticStreamEvent =
  | ({ kind: "add" } & SemanticStreamEntry)
  | { kind: "drop"; ids: number[]; from: string }
  | { kind: "empty"; project: string; from: string };

export interface SemanticFollowEvents {
  /** The first failure of a streak (Redis away, a bad reply): said once. */
  onError(err: unknown): void;
  /** Reading works again after a failure. */
  onResumed(): void;
}

export interface SemanticFeed {
  /** Adds an entry (the stream is trimmed to about its cap); rejects with a RedisFailure. */
  publish(event: SemanticStreamEvent): Promise<void>;
  /** Reads the newest `history` entries, then everything after them as it comes, until stop(). */
  follow(history: number, onEvents: (events: SemanticStreamEvent[]) => void, events: SemanticFollowEvents): { stop(): void };
}

export interface SemanticStreamOptions {
  /** Default "gw:" (the stream is <prefix>sem). */
  prefix?: string;
  /** Entries kept (approximate trimming): default 100,000. */
  maxLen?: number;
  /** How long one XREAD waits for entries (default 1 s; a stop waits at most this). */
  blockMs?: number;
  /** Wait before reading again after a failure (default 500 ms). */
  retryMs?: number;
  timeoutMs?: number;
}

const READ_COUNT = 256;

/** `writer` is the instance's command connection; `reader` only ever runs XREVRANGE and XREAD. */
export function redisSemanticStream(writer: RedisClient, reader: RedisClient, options: SemanticStreamOptions = {}): SemanticFeed {
  const key = `${options.prefix ?? "gw:"}sem`;
  const maxLen = String(options.maxLen ?? 100_000);
  const blockMs = options.blockMs ?? 1_000;
  const retryMs = options.retryMs ?? 500;
  const timeoutMs = options.timeoutMs ?? REDIS_TIMEOUT_MS;
  return {
    publish: async (e) => {
      const fields = e.kind === "drop" ? ["drop", e.ids.join(",")] : e.kind === "empty" ? ["empty", e.project]
        : ["id", String(e.id), "project", e.project, "partition", e.partition, "question", e.question, "expires", String(e.expires)];
      await redisCall(writer, "XADD", [key, "MAXLEN", "~", maxLen, "*", ...fields, "from", e.from], timeoutMs);
    },
    follow: (history, onEvents, events) => {
      let stopped = false;
      let wake: (() => void) | null = null;
      const pause = () => new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, retryMs);
      });
      void (async () => {
        // Null until the history is read: then the id of the newest entry seen ("0-0": none yet).
        let last: string | null = null;
        let failing = false;
        while (!stopped) {
          try {
            let raw: unknown[];
            if (last === null) {
              const newest = await redisCall(reader, "XREVRANGE", [key, "+", "-", "COUNT", String(Math.max(1, history))], timeoutMs * 4);
              raw = Array.isArray(newest) ? newest.reverse() : [];
            } else {
              raw = streamOf(await redisCall(reader, "XREAD", ["COUNT", String(READ_COUNT), "BLOCK", String(blockMs), "STREAMS", key, last], blockMs + timeoutMs * 4), key);
            }
            const entries: SemanticStreamEvent[] = [];
            for (const item of raw) {
              if (!Array.isArray(item) || typeof item[0] !== "string") continue;
              last = item[0];
              const entry = eventOf(item[1]);
              if (entry) entries.push(entry);
            }
            last ??= "0-0";
            if (failing) {
              failing = false;
              events.onResumed();
            }
            if (entries.length > 0 && !stopped) onEvents(entries);
          } catch (err) {
            if (stopped) break;
            if (!failing) events.onError(err);
            failing = true;
            await pause();
          }
        }
      })();
      return {
        stop: () => {
          stopped = true;
          wake?.();
        },
      };
    },
  };
}

/** XREAD's reply for `key`: a map (RESP3) or [[key, entries]] (RESP2); none when it timed out. */
function streamOf(reply: unknown, key: string): unknown[] {
  if (reply === null || typeof reply !== "object") return [];
  if (Array.isArray(reply)) {
    const found = reply.find((s) => Array.isArray(s) && s[0] === key);
    return Array.isArray(found) && Array.isArray(found[1]) ? found[1] : [];
  }
  const entries = (reply as Record<string, unknown>)[key];
  return Array.isArray(entries) ? entries : [];
}

/** An entry's field list as written by publish, or null when it is not one (skipped, never thrown). */
export function eventOf(fields: unknown): SemanticStreamEvent | null {
  if (!Array.isArray(fields)) return null;
  const f = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [name, value] = [fields[i], fields[i + 1]];
    if (typeof name === "string" && typeof value === "string") f.set(name, value);
  }
  const from = f.get("from");
  if (from === undefined) return null;
  const drop = f.get("drop");
  if (drop !== undefined) {
    const ids = drop.split(",").map(Number).filter((id) => Number.isSafeInteger(id) && id >= 0);
    return ids.length > 0 ? { kind: "drop", ids, from } : null;
  }
  const empty = f.get("empty");
  if (empty !== undefined) return { kind: "empty", project: empty, from };
  const id = Number(f.get("id"));
  const expires = Number(f.get("expires"));
  const [project, partition, question] = [f.get("project"), f.get("partition"), f.get("question")];
  if (!Number.isSafeInteger(id) || id < 0 || !Number.isFinite(expires) || project === undefined || partition === undefined || !question) return null;
  return { kind: "add", id, project, partition, question, expires, from };
}
