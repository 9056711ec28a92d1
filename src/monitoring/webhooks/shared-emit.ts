// Events in the multi-instance mode (docs/scale-out.md): emitting only appends to a
// bounded in-memory queue (nothing awaited on the request path); batches are then stored with ON
// CONFLICT DO NOTHING on the natural key, so an event raised on several instances is stored once.
import type { StoredEvent } from "../../store/repos/webhook-events.ts";
import type { EventSink } from "./emitter.ts";

export interface EventBatchStore {
  storeMany(batch: Array<{ event: StoredEvent; exceptEndpoint: string | null }>): Promise<Map<string, string[]>>;
}

/** Events one statement stores at most. */
const BATCH = 200;
/** Events held while PostgreSQL is away; past it the oldest are dropped (and said). */
const MAX_QUEUED = 10_000;
/** Wait before a failed batch is tried again. */
const RETRY_MS = 1_000;
/** A stop waits this long for the last batches. */
const FLUSH_LIMIT_MS = 5_000;

export class SharedEventSink implements EventSink {
  private queue: Array<{ event: StoredEvent; exceptEndpoint: string | null }> = [];
  private running: Promise<void> | null = null;
  private readonly listeners: Array<() => void> = [];
  private closing = false;
  /** A failure is said once per streak (PostgreSQL away would otherwise log every retry). */
  private failing = false;

  constructor(
    private readonly batches: EventBatchStore,
    private readonly onError: (err: unknown, what: string) => void,
    private readonly retryMs = RETRY_MS,
  ) {}

  /** Queued in memory; the events' endpoints are known once stored, so none is named here. */
  store(event: StoredEvent, exceptEndpoint: string | null): string[] {
    if (this.queue.length >= MAX_QUEUED) this.onError(new Error(`webhook event ${this.queue.shift()?.event.type} dropped`), "webhook event queue full");
    this.queue.push({ event, exceptEndpoint });
    // The next macrotask: events raised by the same piece of work go in one batch.
    this.running ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.drain()).finally(() => (this.running = null));
    return [];
  }

  onFlushed(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Waits for the queue to be stored, at most FLUSH_LIMIT_MS; later failures are not retried. */
  async flush(): Promise<void> {
    this.closing = true;
    if (this.queue.length > 0) this.running ??= this.drain().finally(() => (this.running = null));
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.running, new Promise<void>((resolve) => (timer = setTimeout(resolve, FLUSH_LIMIT_MS)))]);
    clearTimeout(timer);
    if (this.queue.length > 0) this.onError(new Error(`${this.queue.length} webhook events not stored`), "webhook events lost at shutdown");
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, BATCH);
      try {
        const stored = await this.batches.storeMany(batch);
        this.failing = false;
        if (stored.size > 0) for (const listener of this.listeners) listener();
      } catch (err) {
        if (!this.failing) this.onError(err, `webhook events not stored; retrying every ${this.retryMs} ms (said once until they are)`);
        this.failing = true;
        this.queue.unshift(...batch);
        if (this.closing) return;
        await Bun.sleep(this.retryMs);
      }
    }
  }
}
