// The USE-lite embedder as seen from the request thread (docs/semantic-cache.md "Embedders"): calls queue up and
// go to the model worker (use-worker.ts) in batches, one batch at a time; each call has its own
// timeout, and a late, failed or refused call rejects, which the cache treats as a miss.
import { LatencyStats } from "./latency.ts";
import type { Embedder } from "./types.ts";
import type { UseWorkerReply, UseWorkerRequest } from "./use-worker.ts";

export interface UseLiteOptions {
  /** From embed() to the answer, queue wait included. A miss costs one provider call; a lookup
   * that waits longer than that is not worth it. */
  timeoutMs?: number;
  /** Texts per message to the worker: small batches keep the tail latency of a burst low. */
  maxBatch?: number;
  /** Texts waiting beyond this are refused at once rather than queued to time out. */
  maxQueue?: number;
  /** Texts longer than this are cut: the semantic cache only takes short questions, and the
   * tokenizer's cost grows faster than the text. */
  maxTextChars?: number;
  workerUrl?: string;
}

const DEFAULTS = { timeoutMs: 1000, maxBatch: 8, maxQueue: 256, maxTextChars: 2000 };
/** Worker crashes in a row (without one answered batch) after which the embedder gives up. */
const MAX_FAILURES = 3;
const DIMENSIONS = 512;

/** From source the worker sits beside this file; in dist/gw modules share the binary's URL and the
 * worker is embedded under the bundle root (src/) as cache/embedder/use-worker.ts. */
const defaultWorkerUrl = (): string =>
  import.meta.url.includes("/$bunfs/")
    ? new URL("./cache/embedder/use-worker.ts", import.meta.url).href
    : new URL("./use-worker.ts", import.meta.url).href;

interface Call {
  texts: string[];
  started: number;
  done: boolean;
  timer: ReturnType<typeof setTimeout> | undefined;
  resolve: (vectors: Float32Array[]) => void;
  reject: (err: Error) => void;
}

export class UseLiteEmbedder implements Embedder {
  readonly name = "use-lite";
  readonly dimensions = DIMENSIONS;
  /** Whole-call latency (queue + model) and the model's own time per batch. */
  readonly latency = new LatencyStats();
  readonly compute = new LatencyStats();
  loadMs = 0;
  private readonly loadedOnce = Promise.withResolvers<number>();
  readonly firstLoad = this.loadedOnce.promise;
  private readonly opts: Required<UseLiteOptions>;
  private worker: Worker | null = null;
  private loaded: Promise<void> | null = null;
  private workerReady = false;
  private queue: Call[] = [];
  private inflight: { id: number; calls: Call[] } | null = null;
  private seq = 0;
  private failures = 0;
  private closed = false;
  private idleWaiters: Array<() => void> = [];

  constructor(options: UseLiteOptions = {}) {
    this.opts = { ...DEFAULTS, workerUrl: defaultWorkerUrl(), ...options };
  }

  ready(): Promise<void> {
    return this.start();
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return Promise.resolve([]);
    if (this.closed) return Promise.reject(new Error("USE-lite embedder is closed"));
    if (this.failures >= MAX_FAILURES) return Promise.reject(new Error("USE-lite embedder is unavailable"));
    const waiting = this.queue.reduce((n, c) => (c.done ? n : n + c.texts.length), 0);
    if (waiting + texts.length > this.opts.maxQueue) {
      this.latency.failures++;
      return Promise.reject(new Error("USE-lite embedder queue is full"));
    }
    return new Promise((resolve, reject) => {
      const call: Call = { texts: texts.map((t) => t.slice(0, this.opts.maxTextChars)), started: performance.now(), done: false, timer: undefined, resolve, reject };
      call.timer = setTimeout(() => this.expire(call), this.opts.timeoutMs);
      this.queue.push(call);
      this.start().catch(() => {}); // a load failure rejects the queued calls itself
      this.pump();
    });
  }

  /** Resolves once no batch is in flight and none is queued, including batches whose calls timed
   * out (the worker finishes them anyway): a drain before shutdown, and for tests. */
  idle(): Promise<void> {
    if (this.inflight === null && this.queue.every((c) => c.done)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.failAll(new Error("USE-lite embedder is closed"));
    this.worker?.terminate();
    this.worker = null;
  }

  private start(): Promise<void> {
    if (this.loaded !== null) return this.loaded;
    if (this.closed || this.failures >= MAX_FAILURES) return Promise.reject(new Error("USE-lite embedder is unavailable"));
    const worker = new Worker(this.opts.workerUrl);
    this.worker = worker;
    this.loaded = new Promise<void>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<UseWorkerReply>) => {
        const msg = event.data;
        if (msg.type === "ready") {
          this.loadMs = msg.loadMs;
          this.workerReady = true;
          this.loadedOnce.resolve(msg.loadMs);
          resolve();
          this.pump();
        } else if (msg.type === "failed") {
          // The model itself cannot load: retrying would fail the same way.
          this.failures = MAX_FAILURES;
          reject(new Error(`USE-lite model failed to load: ${msg.error}`));
          this.crash(new Error(msg.error));
        } else this.answer(msg);
      };
      worker.onerror = (event) => {
        this.failures++;
        const err = new Error(`USE-lite worker failed: ${event.message}`);
        reject(err);
        this.crash(err);
      };
    });
    return this.loaded;
  }

  /** Fails what the dead worker held and forgets it; the next call starts a new one. */
  private crash(err: Error): void {
    this.worker?.terminate();
    this.worker = null;
    this.loaded = null;
    this.workerReady = false;
    this.failAll(err);
  }

  private pump(): void {
    const worker = this.worker;
    if (worker === null || !this.workerReady || this.inflight !== null) return;
    const calls: Call[] = [];
    let size = 0;
    while (this.queue.length > 0) {
      const next = this.queue[0];
      if (next === undefined || (calls.length > 0 && size + next.texts.length > this.opts.maxBatch)) break;
      this.queue.shift();
      if (next.done) continue;
      calls.push(next);
      size += next.texts.length;
    }
    if (calls.length === 0) {
      worker.unref(); // idle: an idle model thread must not keep the process alive
      for (const resolve of this.idleWaiters.splice(0)) resolve();
      return;
    }
    worker.ref();
    const id = ++this.seq;
    this.inflight = { id, calls };
    worker.postMessage({ id, texts: calls.flatMap((c) => c.texts) } satisfies UseWorkerRequest);
  }

  private answer(msg: Extract<UseWorkerReply, { id: number }>): void {
    const batch = this.inflight;
    if (batch === null || batch.id !== msg.id) return;
    this.inflight = null;
    if (msg.type === "error") {
      this.latency.failures += batch.calls.length;
      for (const call of batch.calls) this.settle(call, new Error(`USE-lite embedding failed: ${msg.error}`));
    } else {
      this.failures = 0;
      this.compute.record(msg.computeMs);
      let at = 0;
      for (const call of batch.calls) {
        const vectors = call.texts.map((_, i) => msg.vectors.slice((at + i) * DIMENSIONS, (at + i + 1) * DIMENSIONS));
        at += call.texts.length;
        if (!call.done) this.latency.record(performance.now() - call.started);
        this.settle(call, vectors);
      }
    }
    this.pump();
  }

  private expire(call: Call): void {
    if (call.done) return;
    this.latency.timeouts++;
    this.settle(call, new Error(`USE-lite embedding timed out after ${this.opts.timeoutMs} ms`));
  }

  private settle(call: Call, result: Float32Array[] | Error): void {
    if (call.done) return;
    call.done = true;
    clearTimeout(call.timer);
    if (result instanceof Error) call.reject(result);
    else call.resolve(result);
  }

  private failAll(err: Error): void {
    for (const call of [...(this.inflight?.calls ?? []), ...this.queue]) this.settle(call, err);
    this.inflight = null;
    this.queue = [];
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
