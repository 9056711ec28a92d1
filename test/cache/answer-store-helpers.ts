// Shared by the answer store tests: a real SQLite file in a temp dir, entries, and a repo wrapper
// that counts SQLite reads and can simulate an outage (every call throws).
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteAnswerStore, type AnswerStoreOptions } from "../../src/cache/answer-store.ts";
import type { NewCachedAnswer } from "../../src/cache/answer-store-types.ts";
import { sha256Hex } from "../../src/lib/hash.ts";
import { openDatabase } from "../../src/store/db.ts";
import { cacheEntriesRepo, type CacheEntriesRepo } from "../../src/store/repos/cache-entries.ts";

export const NOW = Date.now();
export const HOUR = 3_600_000;

let seq = 0;
export const newKey = (): string => sha256Hex(`key ${++seq}`);

export function entry(over: Partial<NewCachedAnswer> = {}): NewCachedAnswer {
  return {
    projectId: "proj_a",
    key: newKey(),
    partition: "part-1",
    model: "openai/gpt-4o-mini",
    provider: "openai",
    body: JSON.stringify({ id: "chatcmpl-1", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "Paris." }, finish_reason: "stop" }] }),
    usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
    tags: ["faq"],
    question: null,
    createdAt: NOW,
    expiresAt: NOW + HOUR,
    ...over,
  };
}

export interface Probe {
  down: boolean;
  /** byId calls that reached SQLite. */
  reads: number;
}

/** The repo with a switch: while `down`, every call throws as a failing disk would. */
export function probed(repo: CacheEntriesRepo): { repo: CacheEntriesRepo; probe: Probe } {
  const probe: Probe = { down: false, reads: 0 };
  const wrapped = new Proxy(repo, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (probe.down) throw new Error("SQLITE_IOERR: disk I/O error (simulated)");
        if (prop === "byId") probe.reads++;
        return (value as (...a: unknown[]) => unknown)(...args);
      };
    },
  });
  return { repo: wrapped, probe };
}

export interface Fixture {
  dir: string;
  db: Database;
  probe: Probe;
  store: SqliteAnswerStore;
  removed: number[];
  /** Closes the store and database and opens both again over the same file (a restart). */
  restart(options?: Partial<AnswerStoreOptions>): SqliteAnswerStore;
  cleanup(): void;
}

export function fixture(options: Partial<AnswerStoreOptions> = {}): Fixture {
  const dir = mkdtempSync(join(tmpdir(), "gw-answers-"));
  const open = (opts: Partial<AnswerStoreOptions>) => {
    const db = openDatabase(dir);
    const { repo, probe } = probed(cacheEntriesRepo(db));
    // A long batching window: tests decide when writes reach SQLite (flush, close).
    const store = new SqliteAnswerStore(repo, { memoryBytes: 1 << 20, sweepIntervalMs: 0, flushDelayMs: 60_000, ...opts });
    store.startSweeper();
    return { db, probe, store };
  };
  const f: Fixture = {
    dir,
    ...open(options),
    removed: [],
    restart(opts = {}) {
      f.probe.down = false;
      f.store.close();
      f.db.close();
      Object.assign(f, open({ ...options, ...opts }));
      f.store.onRemoved((ids) => f.removed.push(...ids));
      return f.store;
    },
    cleanup() {
      f.probe.down = false;
      f.store.close();
      f.db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  f.store.onRemoved((ids) => f.removed.push(...ids));
  return f;
}

export const rowCount = (db: Database, table: "cache_entries" | "cache_tags"): number =>
  db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()?.n ?? 0;
