// Where the shared index's vectors come from (docs/scale-out.md "Semantic cache"): another instance's
// answers from PostgreSQL's semantic_vectors (embedded once, by the instance that stored them); this
// instance's own, and any PostgreSQL lacks, from the embedder. This instance's own are stored there.
import type { SemanticVectorStore } from "../store/postgres/semantic-vectors.ts";
import type { SemanticStreamEntry } from "../store/redis/semantic-stream.ts";
import type { Embedder } from "./embedder/types.ts";

/** A stream entry waiting to be indexed; `own`: stored through this instance (to publish once embedded). */
export interface QueuedEntry extends SemanticStreamEntry {
  own: boolean;
}

/** Entries per embedder call: a batch of a slow model must not hold the queue for long. */
const EMBED_BATCH = 8;

export class SharedVectorSource {
  private storeFailing = false;
  /** `${name}-${dimensions}`: vectors of another model are never read. */
  private readonly tag: string;

  constructor(private readonly embedder: Embedder, private readonly store: SemanticVectorStore | null,
    private readonly now: () => number, private readonly onStoreError: (err: unknown) => void) {
    this.tag = `${embedder.name}-${embedder.dimensions}`;
  }

  /** Gets the vectors of `entries` and hands them over in batches (undefined: none could be had,
   * the entry is not indexed). Each embedder batch is stored before it is handed over, and handed over
   * even when the embedder failed (`embedError` is then set): this instance's own entries are
   * published all the same, so the others try their own embedder. */
  async vectorsOf(entries: readonly QueuedEntry[],
    onBatch: (batch: QueuedEntry[], vectors: Array<Float32Array | undefined>, embedError?: unknown) => void): Promise<void> {
    const fetched = await this.fetch(entries.filter((e) => !e.own).map((e) => e.id));
    const found: QueuedEntry[] = [];
    const missing: QueuedEntry[] = [];
    for (const e of entries) (!e.own && fetched.has(e.id) ? found : missing).push(e);
    if (found.length > 0) onBatch(found, found.map((e) => fetched.get(e.id)));
    for (let at = 0; at < missing.length; at += EMBED_BATCH) {
      const batch = missing.slice(at, at + EMBED_BATCH);
      try {
        const vectors = await this.embedder.embed(batch.map((e) => e.question));
        await this.keep(batch, vectors);
        onBatch(batch, batch.map((_, i) => vectors[i]));
      } catch (err) {
        onBatch(batch, [], err);
      }
    }
  }

  private async fetch(ids: number[]): Promise<Map<number, Float32Array>> {
    if (!this.store || ids.length === 0) return new Map();
    try {
      const found = await this.store.get(this.tag, this.embedder.dimensions, ids);
      this.storeFailing = false;
      return found;
    } catch (err) {
      this.failed(err);
      return new Map();
    }
  }

  /** This instance's own vectors into PostgreSQL, before the stream tells the others about them. */
  private async keep(batch: readonly QueuedEntry[], vectors: ReadonlyArray<Float32Array | undefined>): Promise<void> {
    if (!this.store) return;
    const rows = batch.flatMap((e, i) => {
      const vector = vectors[i];
      return e.own && vector ? [{ id: e.id, project: e.project, partition: e.partition, vector, expires: e.expires }] : [];
    });
    if (rows.length === 0) return;
    try {
      await this.store.put(this.tag, rows, this.now());
      this.storeFailing = false;
    } catch (err) {
      this.failed(err);
    }
  }

  /** Dropped answers leave PostgreSQL too (not awaited; expiry removes what is left). */
  forgetIds(ids: readonly number[]): void {
    if (this.store) this.settle(this.store.drop(ids));
  }

  /** An emptied project's vectors leave PostgreSQL (not awaited; expiry removes what is left). */
  forgetProject(projectId: string): void {
    if (this.store) this.settle(this.store.dropProject(projectId));
  }

  private settle(done: Promise<void>): void {
    done.then(() => (this.storeFailing = false), (err: unknown) => this.failed(err));
  }

  /** Said once per streak: while PostgreSQL fails, every instance embeds for itself. */
  private failed(err: unknown): void {
    if (!this.storeFailing) this.onStoreError(err);
    this.storeFailing = true;
  }
}
