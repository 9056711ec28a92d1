// The multi-instance semantic cache (docs/scale-out.md "Semantic cache"): this instance's own vector
// index, fed from the shared Redis stream (its own answers and every other instance's) with vectors
// from PostgreSQL (embedded once, by the instance that stored the answer), off the request path. A
// start reads the stream's recent history. A stale index only misses.
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../observability/logger.ts";
import type { SemanticVectorStore } from "../store/postgres/semantic-vectors.ts";
import type { SemanticFeed, SemanticStreamEvent } from "../store/redis/semantic-stream.ts";
import type { Embedder } from "./embedder/types.ts";
import { learnedFor } from "./semantic-decision.ts";
import { SharedVectorSource, type QueuedEntry } from "./semantic-shared-vectors.ts";
import type { SemanticCache, SemanticCandidate } from "./semantic-types.ts";
import { VectorIndex, type IndexStats } from "./vector-index.ts";
import type { SemanticIndexLimits } from "./semantic-cache.ts";

export interface SharedSemanticOptions extends SemanticIndexLimits {
  /** This instance's id: its own entries are indexed when stored, not again from the stream. */
  instanceId: string;
  /** Newest stream entries read at start (default 10,000; at most what the index could hold). */
  history?: number;
  /** Entries waiting to be embedded at most; past it the oldest waiting are dropped (misses). */
  maxQueued?: number;
  /** Every this often, entries past their expiry leave the index (default 60 s). */
  sweepMs?: number;
  /** PostgreSQL's vectors (null: every instance embeds what it indexes). */
  vectors?: SemanticVectorStore | null;
}

const NEIGHBOURS = 5;
/** Entries whose vectors are looked up in PostgreSQL at once (a start's history, a busy stream). */
const LOOKUP_BATCH = 256;

export class SharedSemanticCache implements SemanticCache {
  private readonly index: VectorIndex;
  /** id -> the answer's expiry and project: the sweep removes what expired (Redis forgets it by
   * itself), an emptied project what it held. */
  private readonly held = new Map<number, { expires: number; project: string }>();
  private queue: QueuedEntry[] = [];
  private readonly vectors: SharedVectorSource;
  private draining: Promise<void> | null = null;
  private following: { stop(): void } | null = null;
  private sweeper: ReturnType<typeof setInterval> | null = null;
  private embedFailing = false;
  /** Bumped by each emptied project (clearedAt): a batch embedding meanwhile skips that project's. */
  private epoch = 0;
  private readonly clearedAt = new Map<string, number>();
  private publishFailing = false;
  private closed = false;
  private readonly history: number;
  private readonly maxQueued: number;
  readonly callsProvider: boolean;
  readonly learnedDecision: boolean;

  constructor(private readonly embedder: Embedder, private readonly feed: SemanticFeed, removals: { onRemoved(listener: (ids: number[]) => void): void },
    private readonly logger: Logger, private readonly clock: Clock, private readonly options: SharedSemanticOptions) {
    this.index = new VectorIndex({ dimensions: embedder.dimensions, tag: `${embedder.name}-${embedder.dimensions}`, ...options });
    this.callsProvider = embedder.name.startsWith("provider:");
    this.learnedDecision = learnedFor(embedder.name);
    const fits = Math.max(1, Math.ceil(Math.min(options.maxBytes ?? Infinity, 2 ** 40) / (embedder.dimensions * 4)));
    this.history = Math.min(options.history ?? 10_000, fits);
    this.maxQueued = Math.max(options.maxQueued ?? 20_000, this.history);
    this.vectors = new SharedVectorSource(embedder, options.vectors ?? null, () => clock.now(),
      (err) => logger.warn({ err }, "semantic vectors: PostgreSQL unavailable (each instance embeds what it indexes until it answers)"));
    // Replaced or invalidated by tag through this instance: dropped here and, told, on the others.
    removals.onRemoved((ids) => {
      for (const id of ids) this.forget(id);
      this.publish({ kind: "drop", ids, from: options.instanceId });
      this.vectors.forgetIds(ids);
    });
    void embedder.firstLoad?.then((ms) => logger.info({ embedder: embedder.name, load_ms: Math.round(ms) }, "sentence model ready"));
  }

  start(): void {
    if (this.following) return;
    this.following = this.feed.follow(this.history, (events) => this.apply(events), {
      onError: (err) => this.logger.error({ err }, "semantic stream unreadable (Redis unavailable?): other instances' answers are not indexed until it reads again"),
      onResumed: () => this.logger.info("semantic stream read again: other instances' answers are indexed"),
    });
    this.sweeper = setInterval(() => this.sweep(), this.options.sweepMs ?? 60_000);
    this.sweeper.unref?.();
  }

  async search(_projectId: string, partition: string, question: string): Promise<SemanticCandidate[]> {
    const [vector] = await this.embedder.embed([question]);
    if (!vector) return [];
    return this.index.search(vector, partition, NEIGHBOURS);
  }

  /** Indexes this instance's stored answer, keeps its vector in PostgreSQL, then tells the others
   * through the stream; a failed publish only means they miss it. */
  add(id: number, partition: string, question: string, projectId: string, expiresAt = Infinity): void {
    this.enqueue([{ id, project: projectId, partition, question, expires: expiresAt, from: this.options.instanceId, own: true }]);
  }

  /** The project was emptied through this instance: its entries leave this index and the others'. */
  emptied(projectId: string): void {
    this.forgetProject(projectId);
    this.publish({ kind: "empty", project: projectId, from: this.options.instanceId });
    this.vectors.forgetProject(projectId);
  }

  /** What other instances wrote (this one's own entries were applied when made). */
  private apply(events: SemanticStreamEvent[]): void {
    const adds: QueuedEntry[] = [];
    for (const e of events) {
      if (e.from === this.options.instanceId) continue;
      if (e.kind === "add") adds.push({ id: e.id, project: e.project, partition: e.partition, question: e.question, expires: e.expires, from: e.from, own: false });
      else if (e.kind === "drop") for (const id of e.ids) this.forget(id);
      else this.forgetProject(e.project);
    }
    this.enqueue(adds);
  }

  private publish(event: SemanticStreamEvent): void {
    this.feed.publish(event).then(() => {
      this.publishFailing = false;
    }, (err: unknown) => {
      if (!this.publishFailing) this.logger.warn({ err }, "semantic stream: not published (other instances' indexes miss the change until it expires)");
      this.publishFailing = true;
    });
  }

  private enqueue(entries: QueuedEntry[]): void {
    if (entries.length === 0) return;
    this.queue.push(...entries);
    // Newest kept: the oldest waiting go first when embedding falls behind.
    if (this.queue.length > 2 * this.maxQueued) this.queue = this.queue.slice(-this.maxQueued);
    this.draining ??= this.drain().finally(() => (this.draining = null));
  }

  private async drain(): Promise<void> {
    try {
      // The model may still be loading: a batch sent now would time out.
      await this.embedder.ready();
    } catch (err) {
      this.failed(err, this.queue.length);
      this.publishOwn(this.queue, this.epoch);
      this.queue = [];
      return;
    }
    while (this.queue.length > 0) {
      // Taken whole (what arrives meanwhile waits for the next round); a project emptied from now on
      // is skipped by its clearedAt, one emptied before was filtered out of the queue.
      const taken = this.queue;
      this.queue = [];
      const started = this.epoch;
      for (let at = 0; at < taken.length && !this.closed; at += LOOKUP_BATCH) {
        const now = this.clock.now();
        const live = taken.slice(at, at + LOOKUP_BATCH).filter((e) => e.expires > now);
        if (live.length > 0) await this.vectors.vectorsOf(live, (batch, vectors, err) => this.indexed(batch, vectors, started, err));
      }
    }
  }

  /** One batch's vectors are here (or the embedder failed): indexed, then this instance's own told. */
  private indexed(batch: QueuedEntry[], vectors: Array<Float32Array | undefined>, started: number, embedError: unknown): void {
    if (embedError !== undefined) this.failed(embedError, batch.length);
    else this.embedFailing = false;
    batch.forEach((e, i) => {
      const vector = vectors[i];
      if (!vector || (this.clearedAt.get(e.project) ?? 0) > started) return;
      this.index.add(e.id, vector, e.partition, e.project);
      this.held.set(e.id, { expires: e.expires, project: e.project });
    });
    this.logger.debug({ entries: batch.length }, "semantic stream: entries indexed");
    this.publishOwn(batch, started);
  }

  /** This instance's own entries on the stream, once their vectors are in PostgreSQL (those of a
   * project emptied meanwhile are not: the others' indexes never see them). */
  private publishOwn(entries: readonly QueuedEntry[], started: number): void {
    for (const e of entries) {
      if (!e.own || !Number.isFinite(e.expires) || (this.clearedAt.get(e.project) ?? 0) > started) continue;
      this.publish({ kind: "add", id: e.id, project: e.project, partition: e.partition, question: e.question, expires: e.expires, from: e.from });
    }
  }

  /** Said once per streak of failures: those answers miss until stored again. */
  private failed(err: unknown, entries: number): void {
    if (!this.embedFailing) this.logger.warn({ err, entries }, "semantic stream: answers not embedded (misses until stored again)");
    this.embedFailing = true;
  }

  private forget(id: number): void {
    this.index.remove(id);
    this.held.delete(id);
  }

  private forgetProject(projectId: string): void {
    this.clearedAt.set(projectId, ++this.epoch);
    this.queue = this.queue.filter((e) => e.project !== projectId);
    for (const [id, e] of this.held) if (e.project === projectId) this.forget(id);
  }

  /** Drops expired entries (off the request path, once a minute). */
  sweep(): void {
    const now = this.clock.now();
    for (const [id, e] of this.held) if (e.expires <= now) this.forget(id);
  }

  /** Whether answer `id` is in this instance's index (tests, diagnostics). */
  holds(id: number): boolean {
    return this.held.has(id);
  }

  stats(): IndexStats {
    return this.index.stats();
  }

  /** Waits for what is queued to be indexed (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.draining) await this.draining;
    await this.index.settled();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.following?.stop();
    if (this.sweeper) clearInterval(this.sweeper);
    this.queue = [];
    await this.settled().catch(() => {});
    await this.embedder.close();
  }
}
