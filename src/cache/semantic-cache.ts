// The semantic cache as the pipeline sees it (semantic-types.ts): an embedder and a partitioned
// vector index over the store's semantic entries, indexed off the request path, saved at stop and
// reconciled or rebuilt at start (docs/semantic-cache.md "Persistence and restarts").
import { join } from "node:path";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../observability/logger.ts";
import { SANDBOX_PROVIDER } from "../providers/sandbox/index.ts";
import type { AnswerStore } from "./answer-store-types.ts";
import type { Embedder } from "./embedder/types.ts";
import { SemanticBacklog, type BacklogJob } from "./semantic-backlog.ts";
import { learnedFor } from "./semantic-decision.ts";
import type { SemanticCache, SemanticCandidate } from "./semantic-types.ts";
import { VectorIndex, type IndexStats } from "./vector-index.ts";

export interface SemanticIndexLimits {
  /** Estimated bytes the index may hold (GW_SEMANTIC_INDEX_MB). */
  maxBytes?: number;
  /** ... and one project's partitions (GW_SEMANTIC_INDEX_PROJECT_MB). */
  maxProjectBytes?: number;
  /** Entries a partition holds flat before it becomes a graph (tests). */
  flatMax?: number;
}

type IndexJob = { id: number; partition: string; question: string; projectId: string };

/** Nearest neighbours judged per lookup: enough for the guard to skip a literal mismatch. */
const NEIGHBOURS = 5;
const REBUILD_BATCH = 8;
const MAX_PENDING_ADDS = 1024;

export class EmbeddedSemanticCache implements SemanticCache {
  private readonly index: VectorIndex;
  private readonly dir: string;
  private rebuilding: Promise<void> | null = null;
  private toIndex: { jobs: IndexJob[]; how: string } | null = null;
  private readonly adding = new Set<Promise<void>>();
  /** Stored answers the embedder could not embed yet (docs/semantic-cache.md "Cold start"). */
  private readonly backlog: SemanticBacklog;
  private readonly maxBytes: number;
  /** A live provider embeds (its name is "provider:<model>"): test keys' questions stay away from it. */
  readonly callsProvider: boolean;
  /** The hit decision's classifier was trained with this embedder (semantic-decision.ts). */
  readonly learnedDecision: boolean;

  constructor(private readonly embedder: Embedder, private readonly store: AnswerStore, dataDir: string, private readonly logger: Logger, private readonly clock: Clock, limits: SemanticIndexLimits = {}) {
    this.index = new VectorIndex({ dimensions: embedder.dimensions, tag: `${embedder.name}-${embedder.dimensions}`, ...limits });
    this.callsProvider = embedder.name.startsWith("provider:");
    this.learnedDecision = learnedFor(embedder.name);
    this.maxBytes = Math.min(limits.maxBytes ?? Infinity, 2 ** 40);
    this.dir = join(dataDir, "semantic-index");
    store.onRemoved((ids) => {
      for (const id of ids) this.index.remove(id);
    });
    this.backlog = new SemanticBacklog({
      ready: () => embedder.ready(),
      index: (batch) => this.indexBatch(batch),
      onGiveUp: (entries, err) => logger.warn({ err, entries }, "semantic index: answers the embedder could not embed are left to the next start"),
    });
    // Said once, whenever the model first loads (at start when a project uses the semantic cache).
    void embedder.firstLoad?.then((ms) => logger.info({ embedder: embedder.name, load_ms: Math.round(ms) }, "sentence model ready"));
  }

  /** Loads the saved index and reconciles it with the store, or finds what a rebuild must embed;
   * the embedding waits for start(). */
  open(): this {
    let loaded = false;
    try {
      loaded = this.index.load(this.dir);
    } catch (err) {
      this.logger.warn({ err }, "semantic index unreadable; rebuilding it from the cache store");
    }
    try {
      this.toIndex = loaded ? { jobs: this.reconcile(), how: "reconciled with" } : { jobs: this.liveJobs(0), how: "rebuilt from" };
    } catch (err) {
      this.logger.error({ err }, "semantic index not reconciled with the cache store; semantic lookups miss until entries are added");
    }
    return this;
  }

  /** Embeds, in the background, what open() found missing from the index. */
  start(): void {
    if (!this.toIndex) return;
    const { jobs, how } = this.toIndex;
    this.toIndex = null;
    this.rebuilding = this.indexAll(jobs, how);
  }

  /** After a load: drops what the store no longer holds (deleted or expired while gw was down or
   * since the save) and returns the entries stored after the save (an unclean stop loses the
   * index's own record of them). Synchronous, before any request, so nothing races it. */
  private reconcile(): IndexJob[] {
    const live = new Set<number>();
    const jobs = this.liveJobs(this.index.watermark, live);
    let dropped = 0;
    for (const [, slot] of [...this.index.entries()]) {
      for (const id of [...slot.part.ids()]) if (!live.has(id) && this.index.remove(id)) dropped++;
    }
    if (dropped > 0) this.logger.info({ entries: dropped }, "semantic index: entries removed from the cache store since the last save dropped");
    return jobs;
  }

  /** The store's live semantic entries above `after` (every id seen goes into `live`), at most as
   * many as the index could hold, newest kept: embedding more would only evict them again. */
  private liveJobs(after: number, live?: Set<number>): IndexJob[] {
    const most = Math.max(1, Math.ceil(this.maxBytes / (this.embedder.dimensions * 4)));
    let jobs: IndexJob[] = [];
    const newest = (): IndexJob[] => jobs.sort((a, b) => b.id - a.id).slice(0, most);
    for (const e of this.store.semanticEntries()) {
      if (e.question === null) continue;
      live?.add(e.id);
      // A test key's question never goes to a live provider, the start-up rebuild included.
      if (this.callsProvider && e.provider === SANDBOX_PROVIDER) continue;
      if (e.id > after) jobs.push({ id: e.id, partition: e.partition, question: e.question, projectId: e.projectId });
      if (jobs.length >= 2 * most) jobs = newest();
    }
    return newest().reverse();
  }

  private async indexAll(jobs: IndexJob[], how: string): Promise<void> {
    if (jobs.length === 0) return;
    let count = 0;
    let later = 0;
    // The model may still be loading: a batch sent now would time out.
    await this.embedder.ready().catch(() => {});
    // Batches of the embedder's size: one model call per eight questions, not per question.
    for (let at = 0; at < jobs.length; at += REBUILD_BATCH) {
      const batch = jobs.slice(at, at + REBUILD_BATCH);
      try {
        await this.embedAndAdd(batch);
        count += batch.length;
      } catch {
        // Retried in the background, or left to the next start when the backlog is full.
        for (const { id, partition, projectId } of batch) this.backlog.push({ id, partition, projectId });
        later += batch.length;
      }
    }
    if (count > 0) this.logger.info({ entries: count }, `semantic index ${how} the cache store`);
    if (later > 0) this.logger.warn({ entries: later }, "semantic index: answers not embedded at start are retried in the background");
  }

  /** Embeds the questions and adds those whose entry is still stored. */
  private async embedAndAdd(batch: IndexJob[]): Promise<void> {
    const vectors = await this.embedder.embed(batch.map((e) => e.question));
    const now = this.clock.now();
    batch.forEach((e, i) => {
      // Removed while the batch was embedded: not indexed.
      if (vectors[i] && this.store.byId(e.projectId, e.id, now)) this.index.add(e.id, vectors[i]!, e.partition, e.projectId);
    });
  }

  /** A backlog batch: the questions are read back from the store (gone entries are skipped). */
  private async indexBatch(batch: BacklogJob[]): Promise<void> {
    const now = this.clock.now();
    const jobs: IndexJob[] = [];
    for (const job of batch) {
      const question = this.store.byId(job.projectId, job.id, now)?.question;
      if (question) jobs.push({ ...job, question });
    }
    if (jobs.length > 0) await this.embedAndAdd(jobs);
  }

  /** Sizes of the index (docs/semantic-cache.md "Memory"). */
  stats(): IndexStats {
    return this.index.stats();
  }

  async search(_projectId: string, partition: string, question: string): Promise<SemanticCandidate[]> {
    const [vector] = await this.embedder.embed([question]);
    if (!vector) return [];
    return this.index.search(vector, partition, NEIGHBOURS);
  }

  add(id: number, partition: string, question: string, projectId: string): void {
    // Indexing waits on the embedder; past this many waiting, or when the embedder cannot answer
    // (still loading, failed), the answer goes to the backlog: indexed later, off the request path.
    if (this.adding.size >= MAX_PENDING_ADDS) return this.backlog.push({ id, partition, projectId });
    const work = this.embedder.embed([question]).then(
      ([vector]) => {
        // Removed while it was being embedded (invalidated, replaced): not indexed.
        if (vector && this.store.byId(projectId, id, this.clock.now())) this.index.add(id, vector, partition, projectId);
      },
      () => this.backlog.push({ id, partition, projectId }),
    );
    this.adding.add(work);
    void work.finally(() => this.adding.delete(work));
  }

  /** Waits for indexing under way (tests, shutdown). */
  async settled(): Promise<void> {
    await this.rebuilding;
    while (this.adding.size > 0) await Promise.all([...this.adding]);
    await this.backlog.settled();
    await this.index.settled();
  }

  /** Answers stored and waiting to be indexed (tests, metrics). */
  get backlogSize(): number {
    return this.backlog.size;
  }

  async close(): Promise<void> {
    try {
      await this.rebuilding;
      while (this.adding.size > 0) await Promise.all([...this.adding]);
      await this.backlog.stop();
      await this.index.settled();
      // What the backlog still held stays above the saved watermark, so the next start embeds it.
      this.index.save(this.dir, this.backlog.lowestUnindexed() - 1);
    } catch (err) {
      this.logger.error({ err }, "semantic index not saved; it will be rebuilt at the next start");
    }
    await this.embedder.close();
  }
}
