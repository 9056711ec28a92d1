// The request thread's side of the token engine's worker (docs/optimization.md "Where it runs"): one
// long-lived worker, started on first use, unref'd while idle so it never holds the process open;
// a job that fails, times out or finds the queue full resolves to its reason, never throws.
import type { ChatRequest } from "../canonical/chat.ts";
import type { OptimizationOptions, OptimizationTrace } from "./types.ts";
import type { EngineJob, EngineReply } from "./worker-protocol.ts";

/** From source the worker sits beside this file; in `dist/gw` it is embedded under the bundle root
 * (src/) as `optimization/worker.ts` (scripts/build.ts names it as an entry point). */
const workerUrl = (): string =>
  import.meta.url.includes("/$bunfs/")
    ? new URL("./optimization/worker.ts", import.meta.url).href
    : new URL("./worker.ts", import.meta.url).href;

export interface EngineWorkerOptions {
  url?: string;
  /** How long a job may take from the moment the ready worker receives it, queueing included. */
  timeoutMs?: number;
  /** How long the worker may take to load (its tokenizer tables) before its jobs fail. */
  loadLimitMs?: number;
  /** Jobs waiting or running beyond this are refused at once: the request goes on unoptimised. */
  maxPending?: number;
}

export type EngineOutcome =
  | { ok: true; request: ChatRequest | null; trace: OptimizationTrace }
  | { ok: false; reason: "timeout" | "error" | "busy"; error?: string };

interface Job {
  message: EngineJob;
  resolve: (outcome: EngineOutcome) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

const DEFAULTS = { timeoutMs: 2_000, loadLimitMs: 15_000, maxPending: 32 };
/** A worker that fails this many times in a row without answering a job is not started again. */
const MAX_FAILURES = 3;

export class EngineWorker {
  private readonly opts: Required<EngineWorkerOptions>;
  private worker: Worker | null = null;
  private ready = false;
  private loadTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly jobs = new Map<number, Job>();
  private seq = 0;
  private failures = 0;

  constructor(options: EngineWorkerOptions = {}) {
    this.opts = { ...DEFAULTS, url: workerUrl(), ...options };
  }

  /** Jobs sent and not yet answered (or given up on). */
  pending(): number {
    return this.jobs.size;
  }

  optimize(request: ChatRequest, options: OptimizationOptions, windowTokens: number | null): Promise<EngineOutcome> {
    if (this.failures >= MAX_FAILURES) return Promise.resolve({ ok: false, reason: "error", error: "the token engine's worker is unavailable" });
    if (this.jobs.size >= this.opts.maxPending) return Promise.resolve({ ok: false, reason: "busy" });
    return new Promise((resolve) => {
      const job: Job = { message: { id: ++this.seq, request, options, windowTokens }, resolve, timer: undefined };
      this.jobs.set(job.message.id, job);
      let worker: Worker;
      try {
        worker = this.start();
      } catch (err) {
        this.failures++;
        return this.settle(job, { ok: false, reason: "error", error: err instanceof Error ? err.message : String(err) });
      }
      worker.ref(); // a job in flight keeps the process alive until it is answered
      if (this.ready) this.send(worker, job);
    });
  }

  close(): void {
    this.stop("the token engine's worker is closed");
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.opts.url);
    this.worker = worker;
    this.ready = false;
    this.loadTimer = setTimeout(() => {
      this.failures++;
      this.stop(`the token engine's worker did not load within ${this.opts.loadLimitMs} ms`);
    }, this.opts.loadLimitMs);
    worker.onmessage = (event: MessageEvent<EngineReply>) => this.reply(worker, event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      if (this.worker !== worker) return;
      this.failures++;
      this.stop(event.message || "the token engine's worker failed");
    };
    return worker;
  }

  private reply(worker: Worker, msg: EngineReply): void {
    if (worker !== this.worker) return;
    if (msg.type === "ready") {
      this.ready = true;
      clearTimeout(this.loadTimer);
      for (const job of this.jobs.values()) this.send(worker, job);
      if (this.jobs.size === 0) worker.unref();
      return;
    }
    const job = this.jobs.get(msg.id);
    this.failures = 0;
    if (!job) return; // timed out: its answer comes too late
    this.settle(job, msg.type === "done" ? { ok: true, request: msg.request, trace: msg.trace } : { ok: false, reason: "error", error: msg.error });
  }

  private send(worker: Worker, job: Job): void {
    job.timer = setTimeout(() => this.settle(job, { ok: false, reason: "timeout" }), this.opts.timeoutMs);
    try {
      worker.postMessage(job.message);
    } catch (err) {
      this.settle(job, { ok: false, reason: "error", error: err instanceof Error ? err.message : String(err) });
    }
  }

  private settle(job: Job, outcome: EngineOutcome): void {
    if (!this.jobs.delete(job.message.id)) return;
    clearTimeout(job.timer);
    if (this.jobs.size === 0) this.worker?.unref();
    job.resolve(outcome);
  }

  /** Fails every job and drops the worker; the next job starts a new one. */
  private stop(error: string): void {
    clearTimeout(this.loadTimer);
    const worker = this.worker;
    this.worker = null;
    this.ready = false;
    for (const job of [...this.jobs.values()]) this.settle(job, { ok: false, reason: "error", error });
    worker?.terminate();
  }
}

let shared: EngineWorker | null = null;

/** The process's one engine worker, made on first use. */
export const engineWorker = (): EngineWorker => (shared ??= new EngineWorker());
