// The semantic cache as the pipeline sees it (semantic-types.ts): an embedder and a partitioned
// vector index over the answer store's semantic entries. Indexing runs off the request path; the
// index follows the store's removals (invalidation, expiry, replacement), is saved in the data
// directory on shutdown, and is rebuilt from the store when the saved one is missing, corrupt or
// made by another embedder. Nothing here logs a question.
import { join } from "node:path";
import type { Logger } from "../observability/logger.ts";
import type { AnswerStore } from "./answer-store-types.ts";
import type { Embedder } from "./embedder/types.ts";
import type { SemanticCache, SemanticCandidate } from "./semantic-types.ts";
import { VectorIndex } from "./vector-index.ts";

/** Nearest neighbours judged per lookup: enough for the guard to skip a literal mismatch. */
const NEIGHBOURS = 5;
const REBUILD_BATCH = 8;

export class EmbeddedSemanticCache implements SemanticCache {
  private readonly index: VectorIndex;
  private readonly dir: string;
  private rebuilding: Promise<void> | null = null;

  constructor(private readonly embedder: Embedder, private readonly store: AnswerStore, dataDir: string, private readonly logger: Logger) {
    this.index = new VectorIndex({ dimensions: embedder.dimensions, tag: `${embedder.name}-${embedder.dimensions}` });
    this.dir = join(dataDir, "semantic-index");
    store.onRemoved((ids) => {
      for (const id of ids) this.index.remove(id);
    });
  }

  /** Loads the saved index, or rebuilds it from the store in the background. */
  start(): void {
    let loaded = false;
    try {
      loaded = this.index.load(this.dir);
    } catch (err) {
      this.logger.warn({ err }, "semantic index unreadable; rebuilding it from the cache store");
    }
    if (!loaded) this.rebuilding = this.rebuild();
  }

  private async rebuild(): Promise<void> {
    let count = 0;
    try {
      // Batches of the embedder's size: one model call per eight questions, not per question.
      let batch: Array<{ id: number; partition: string; question: string }> = [];
      const flush = async () => {
        const vectors = await this.embedder.embed(batch.map((e) => e.question));
        batch.forEach((e, i) => vectors[i] && this.index.add(e.id, vectors[i]!, e.partition));
        count += batch.length;
        batch = [];
      };
      for (const e of this.store.semanticEntries()) {
        if (e.question === null) continue;
        batch.push({ id: e.id, partition: e.partition, question: e.question });
        if (batch.length === REBUILD_BATCH) await flush();
      }
      if (batch.length > 0) await flush();
      if (count > 0) this.logger.info({ entries: count }, "semantic index rebuilt from the cache store");
    } catch (err) {
      this.logger.error({ err }, "semantic index rebuild failed; semantic lookups miss until entries are added");
    }
  }

  async search(_projectId: string, partition: string, question: string): Promise<SemanticCandidate[]> {
    const [vector] = await this.embedder.embed([question]);
    if (!vector) return [];
    return this.index.search(vector, partition, NEIGHBOURS);
  }

  add(id: number, partition: string, question: string, projectId: string): void {
    this.embedder.embed([question]).then(
      ([vector]) => {
        // Removed while it was being embedded (invalidated, replaced): not indexed.
        if (vector && this.store.byId(projectId, id, Date.now())) this.index.add(id, vector, partition);
      },
      (err: unknown) => this.logger.warn({ err }, "a cached answer could not be indexed for semantic lookups"),
    );
  }

  /** Waits for indexing under way (tests, shutdown). */
  async settled(): Promise<void> {
    await this.rebuilding;
    await this.index.settled();
  }

  async close(): Promise<void> {
    try {
      await this.settled();
      this.index.save(this.dir);
    } catch (err) {
      this.logger.error({ err }, "semantic index not saved; it will be rebuilt at the next start");
    }
    await this.embedder.close();
  }
}
