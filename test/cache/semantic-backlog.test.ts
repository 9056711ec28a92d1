// Answers stored while the embedder cannot embed them are indexed later (issue 22 item 5,
// docs/semantic-cache.md "Cold start"): the real semantic cache, answer store (SQLite) and n-gram
// embedder, behind a switch that makes the embedder unavailable the way a loading or failed model is.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NgramEmbedder } from "../../src/cache/embedder/ngram.ts";
import type { Embedder } from "../../src/cache/embedder/types.ts";
import { SemanticBacklog } from "../../src/cache/semantic-backlog.ts";
import { EmbeddedSemanticCache } from "../../src/cache/semantic-cache.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { entry, fixture, type Fixture } from "./answer-store-helpers.ts";

const logger = createLogger("silent");

/** The n-gram embedder, unavailable until `load()` (ready() waits for it), and refusing `refused` texts. */
class Switched implements Embedder {
  readonly name = "ngram-512";
  readonly dimensions = 512;
  readonly refused = new Set<string>();
  private readonly inner = new NgramEmbedder();
  private readonly loaded = Promise.withResolvers<void>();
  private up = false;
  load(): void {
    this.up = true;
    this.loaded.resolve();
  }
  embed(texts: string[]): Promise<Float32Array[]> {
    if (!this.up) return Promise.reject(new Error("embedding timed out while the model loads"));
    if (texts.some((t) => this.refused.has(t))) return Promise.reject(new Error("embedding failed"));
    return this.inner.embed(texts);
  }
  ready(): Promise<void> {
    return this.loaded.promise;
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

let f: Fixture;
let dataDir: string;
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A store and a data directory for one test, removed after it. */
function fresh(): void {
  const [store, data] = [(f = fixture()), (dataDir = mkdtempSync(join(tmpdir(), "gw-backlog-")))];
  cleanups.push(() => {
    store.cleanup();
    rmSync(data, { recursive: true, force: true });
  });
}

function setup(embedder: Embedder): EmbeddedSemanticCache {
  fresh();
  const cache = new EmbeddedSemanticCache(embedder, f.store, dataDir, logger, systemClock).open();
  cache.start();
  return cache;
}

function stored(cache: EmbeddedSemanticCache, question: string): number {
  const { id, partition, projectId } = f.store.put(entry({ question }));
  cache.add(id, partition, question, projectId);
  return id;
}

const found = async (cache: EmbeddedSemanticCache, question: string): Promise<number[]> =>
  (await cache.search("proj_a", "part-1", question)).filter((c) => c.similarity > 0.99).map((c) => c.id);

test("an answer stored while the model loads is indexed once it has loaded", async () => {
  const embedder = new Switched();
  const cache = setup(embedder);
  const id = stored(cache, "What is the capital of France?");
  await Promise.resolve();
  expect(cache.backlogSize).toBe(1);
  embedder.load();
  await cache.settled();
  expect(cache.backlogSize).toBe(0);
  expect(await found(cache, "What is the capital of France?")).toEqual([id]);
  await cache.close();
});

test("an answer still unindexed at a clean stop is embedded at the next start, though newer ones were indexed", async () => {
  const embedder = new Switched();
  embedder.load();
  embedder.refused.add("What is the capital of France?");
  const cache = setup(embedder);
  const missed = stored(cache, "What is the capital of France?");
  const indexed = stored(cache, "How do I reset my password?");
  expect(indexed).toBeGreaterThan(missed);
  while (cache.backlogSize === 0) await Promise.resolve();
  await cache.close(); // the saved watermark stays below the missed answer

  const again = new EmbeddedSemanticCache(new NgramEmbedder(), f.store, dataDir, logger, systemClock).open();
  again.start();
  await again.settled();
  expect(await found(again, "What is the capital of France?")).toEqual([missed]);
  expect(await found(again, "How do I reset my password?")).toEqual([indexed]);
  await again.close();
});

test("the start-up rebuild waits for the model instead of failing while it loads", async () => {
  fresh();
  const { id } = f.store.put(entry({ question: "What is the capital of France?" }));
  const embedder = new Switched();
  const cache = new EmbeddedSemanticCache(embedder, f.store, dataDir, logger, systemClock).open();
  cache.start(); // no saved index: everything is embedded, once the model answers
  await Promise.resolve();
  embedder.load();
  await cache.settled();
  expect(await found(cache, "What is the capital of France?")).toEqual([id]);
  await cache.close();
});

describe("the backlog itself: bounded, retried, given up", () => {
  const job = (id: number) => ({ id, partition: "part-1", projectId: "proj_a" });

  test("holds at most `max` ids; the ones let go stay the lowest unindexed for the next start", async () => {
    const loaded = Promise.withResolvers<void>();
    const indexed: number[] = [];
    const backlog = new SemanticBacklog({ ready: () => loaded.promise, index: async (b) => void indexed.push(...b.map((j) => j.id)), onGiveUp: () => {}, max: 2 });
    for (const id of [7, 8, 5]) backlog.push(job(id));
    expect(backlog.size).toBe(2);
    expect(backlog.lowestUnindexed()).toBe(5);
    loaded.resolve();
    await backlog.settled();
    expect(indexed).toEqual([7, 8]);
    expect(backlog.size).toBe(0);
    expect(backlog.lowestUnindexed()).toBe(5);
  });

  test("a failing batch is retried; after maxFailures in a row it is given up and said once", async () => {
    let calls = 0;
    const givenUp: number[] = [];
    const backlog = new SemanticBacklog({
      ready: () => Promise.resolve(),
      index: () => Promise.reject(new Error(`embedding failed ${++calls}`)),
      onGiveUp: (entries) => givenUp.push(entries),
      maxFailures: 3, retryMs: 1,
    });
    backlog.push(job(3));
    backlog.push(job(4));
    await backlog.settled();
    expect(calls).toBe(3);
    expect(givenUp).toEqual([2]);
    expect(backlog.lowestUnindexed()).toBe(3);
  });

  test("stop() ends the retries at once, and what is left stays unindexed", async () => {
    const backlog = new SemanticBacklog({ ready: () => Promise.resolve(), index: () => Promise.reject(new Error("down")), onGiveUp: () => {}, retryMs: 60_000 });
    backlog.push(job(11));
    await backlog.stop();
    expect(backlog.size).toBe(0);
    expect(backlog.lowestUnindexed()).toBe(11);
    backlog.push(job(12));
    expect(backlog.size).toBe(0);
  });
});
