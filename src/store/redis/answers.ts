// The exact cache's answers on Redis (docs/cache.md "Storage"), shared by every instance: an entry
// lives for its own TTL (PX from its expiresAt), tags are sets, and emptying a project is one INCR
// of its generation number. Each call is one bounded script; a RedisFailure is a miss for the caller.
import type { RedisClient } from "bun";
import type { Invalidation } from "../../schema/cache-invalidate.ts";
import type { NewCacheRecord, SharedAnswerStore } from "../answer-cache-store.ts";
import type { CacheRecord } from "../repos/cache-entries.ts";
import { byIdScript, getScript, invalidateAllScript, invalidateTagsScript, putScript } from "./answers-scripts.ts";
import { OutageLatch, REDIS_TIMEOUT_MS, RedisFailure, textFields } from "./redis-call.ts";

export interface RedisAnswerStoreOptions {
  /** Epoch ms, for the PX of a new entry (its expiresAt minus now). */
  now?: () => number;
  prefix?: string;
  timeoutMs?: number;
  onError?: (err: unknown, context: string) => void;
}

export class RedisAnswerStore implements SharedAnswerStore {
  private readonly now: () => number;
  private readonly base: string;
  private readonly timeoutMs: number;
  private readonly listeners: Array<(ids: number[]) => void> = [];
  private readonly onError: (err: unknown, context: string) => void;
  /** Reads and writes that reached Redis clear it; the request path says an outage once through it. */
  readonly outage = new OutageLatch();

  constructor(private readonly client: RedisClient, options: RedisAnswerStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.base = `${options.prefix ?? "gw:"}ans:`;
    this.timeoutMs = options.timeoutMs ?? REDIS_TIMEOUT_MS;
    this.onError = options.onError ?? (() => {});
  }

  async get(projectId: string, key: string, now: number): Promise<CacheRecord | null> {
    const reply = await getScript.run(this.client, [this.genOf(projectId)], [this.base, projectId, key], this.timeoutMs);
    this.outage.ok();
    return live(reply, now);
  }

  async byId(projectId: string, id: number, now: number): Promise<CacheRecord | null> {
    return live(await byIdScript.run(this.client, [this.genOf(projectId)], [this.base, projectId, String(id)], this.timeoutMs), now);
  }

  async put(entry: NewCacheRecord): Promise<CacheRecord> {
    const tags = [...new Set(entry.tags)].sort();
    const stored: NewCacheRecord = { ...entry, tags };
    const px = Math.ceil(entry.expiresAt - this.now());
    if (px <= 0) throw new RedisFailure("error", "answers put", "entry already expired");
    const reply = textFields(await putScript.run(this.client, [this.genOf(entry.projectId), `${this.base}seq`],
      [this.base, entry.projectId, entry.key, JSON.stringify(stored), String(px), JSON.stringify(tags), ...tags], this.timeoutMs), "answers put");
    this.outage.ok();
    if (reply[1]) this.emit([Number(reply[1])]);
    return { ...stored, id: Number(reply[0]) };
  }

  async invalidate(projectId: string, what: Invalidation): Promise<number> {
    const gen = [this.genOf(projectId)];
    if ("all" in what) return Number(await invalidateAllScript.run(this.client, gen, [this.base, projectId], this.timeoutMs));
    const tags = [...new Set(what.tags)];
    const ids = textFields(await invalidateTagsScript.run(this.client, gen, [this.base, projectId, ...tags], this.timeoutMs), "answers invalidate").map(Number);
    this.emit(ids);
    return ids.length;
  }

  onRemoved(listener: (ids: number[]) => void): void {
    this.listeners.push(listener);
  }

  private genOf(projectId: string): string {
    return `${this.base}gen:${projectId}`;
  }

  private emit(ids: number[]): void {
    if (ids.length === 0) return;
    for (const listener of this.listeners) {
      try {
        listener(ids);
      } catch (err) {
        this.onError(err, "cache removal listener failed");
      }
    }
  }
}

/** The entry of a {id, JSON} reply, or null when absent or past its expiry at `now`. */
function live(reply: unknown, now: number): CacheRecord | null {
  if (reply === null) return null;
  const [id, json] = textFields(reply, "answers read");
  const entry = JSON.parse(json!) as NewCacheRecord;
  return entry.expiresAt > now ? { ...entry, id: Number(id) } : null;
}
