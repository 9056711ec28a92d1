// OTLP/HTTP JSON trace export (docs/observability.md "Export"). The request path only pushes the
// row onto a bounded queue; encoding and sending run later from a timer, one POST in flight at a
// time, retried with backoff. A collector that is slow or down costs queued spans, never requests.
import type { Logger } from "../logger.ts";
import type { RequestRecord } from "../../store/repos/requests.ts";
import type { OtlpConfig } from "../../config/otlp.ts";
import { encodeRequest, traceRequestBody, type OtlpSpan } from "./encode.ts";
import { SpanQueue, spanCountOf } from "./span-queue.ts";

const RETRY_BASE_MS = 500;
const RETRY_MAX_MS = 30_000;
const MAX_ATTEMPTS = 5;
/** The OTLP/HTTP spec's retryable answers; any other failure status drops the batch. */
const RETRYABLE = new Set([408, 429, 502, 503, 504]);

type PostResult = { ok: true; rejected: number } | { ok: false; retry: boolean; why: string; retryAfterMs?: number };

export interface OtlpStats {
  exportedSpans: number;
  /** Pushed out of a full queue (oldest first), or recorded after shutdown began. */
  droppedSpans: number;
  /** Sent but not accepted: retries exhausted, a non-retryable answer, or rejected by the collector. */
  failedSpans: number;
  queuedSpans: number;
}

export class OtlpExporter {
  private readonly queue: SpanQueue;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private timerImmediate = false;
  private pumping: Promise<void> | null = null;
  private closing = false;
  private closed: Promise<void> | null = null;
  /** Fired at the shutdown deadline: cuts the POST in flight and any backoff short. */
  private readonly abort = new AbortController();
  private exported = 0;
  private failed = 0;
  private lateDrops = 0;
  private failing = false;
  /** Ends a backoff pause early, so shutdown makes its last attempt at once. */
  private wake: (() => void) | null = null;

  constructor(private readonly config: OtlpConfig, private readonly logger: Logger) {
    this.queue = new SpanQueue(config.queueSpans);
  }

  /** deps.requestListeners entry: O(1), never throws, never waits. */
  readonly listener = (row: RequestRecord): void => {
    try {
      const n = spanCountOf(row);
      if (n === 0) return; // no detailed trace kept (sampling): nothing to export
      if (this.closing) return void (this.lateDrops += n);
      this.queue.push(row, n);
      this.schedule(this.queue.spans >= this.config.batchSpans);
    } catch {
      // Exporting is best effort; the request has already been answered and logged.
    }
  };

  stats(): OtlpStats {
    return {
      exportedSpans: this.exported, droppedSpans: this.queue.dropped + this.lateDrops,
      failedSpans: this.failed, queuedSpans: this.queue.spans,
    };
  }

  /** Sends what is queued within `limitMs`; what cannot be sent by then is counted as failed. */
  shutdown(limitMs: number): Promise<void> {
    return (this.closed ??= (async () => {
      this.closing = true;
      this.wake?.();
      const deadline = setTimeout(() => this.abort.abort(), limitMs);
      try {
        await this.flush();
      } finally {
        clearTimeout(deadline);
      }
    })());
  }

  /** Sends everything queued now and resolves when it is sent or given up (shutdown, tests). */
  async flush(): Promise<void> {
    while (this.pumping) await this.pumping;
    await this.start(true);
  }

  /** A batch is due now when a full one is queued, else one interval after the first row. */
  private schedule(now: boolean): void {
    if (this.pumping || this.closing) return; // the running pump looks at the queue when it ends
    if (this.timer && (this.timerImmediate || !now)) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerImmediate = now;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.pumping) void this.start(false);
    }, now ? 0 : this.config.intervalMs);
    this.timer.unref?.();
  }

  private start(all: boolean): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const run: Promise<void> = this.pump(all)
      .catch((err: unknown) => this.logger.error({ err }, "OTLP export failed unexpectedly"))
      .finally(() => {
        if (this.pumping === run) this.pumping = null;
        if (this.queue.size > 0) this.schedule(this.queue.spans >= this.config.batchSpans);
      });
    this.pumping = run;
    return run;
  }

  /** Sends full batches back to back; a partial batch waits for the next interval unless `all`. */
  private async pump(all: boolean): Promise<void> {
    do {
      const rows = this.queue.take(this.config.batchSpans);
      if (rows.length === 0) return;
      await this.send(rows);
    } while (this.queue.spans >= this.config.batchSpans || (all && this.queue.size > 0));
  }

  private async send(rows: RequestRecord[]): Promise<void> {
    const spans: OtlpSpan[] = [];
    for (const row of rows) for (const span of encodeRequest(row)) spans.push(span);
    if (spans.length === 0) return;
    const body = traceRequestBody(spans);
    for (let attempt = 1; ; attempt++) {
      const result = this.abort.signal.aborted ? { ok: false as const, retry: false, why: "shutdown deadline" } : await this.post(body);
      if (result.ok) {
        this.exported += spans.length - result.rejected;
        this.failed += result.rejected;
        if (this.failing) this.logger.info({ url: this.config.tracesUrl }, "OTLP export recovered");
        this.failing = false;
        return;
      }
      if (!result.retry || attempt >= MAX_ATTEMPTS || this.closing) {
        this.failed += spans.length;
        this.reportFailure(result.why, spans.length);
        return;
      }
      const backoff = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
      await this.sleep(Math.min(RETRY_MAX_MS, Math.max(backoff, result.retryAfterMs ?? 0)));
    }
  }

  private async post(body: string): Promise<PostResult> {
    try {
      const res = await fetch(this.config.tracesUrl, {
        method: "POST",
        headers: { ...this.config.headers, "content-type": "application/json" },
        body,
        signal: AbortSignal.any([AbortSignal.timeout(this.config.timeoutMs), this.abort.signal]),
      });
      const text = await res.text();
      if (res.ok) return { ok: true, rejected: rejectedSpans(text) };
      const retryAfter = Number(res.headers.get("retry-after"));
      return {
        ok: false, retry: RETRYABLE.has(res.status), why: `HTTP ${res.status}`,
        ...(retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}),
      };
    } catch (err) {
      return { ok: false, retry: true, why: err instanceof Error ? err.message : String(err) };
    }
  }

  /** Said once per outage, not once per batch, so a dead collector cannot flood the log. */
  private reportFailure(why: string, spans: number): void {
    if (this.failing) return;
    this.failing = true;
    this.logger.warn({ url: this.config.tracesUrl, why, spans }, "OTLP export failing; spans are dropped until the collector answers");
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.abort.signal;
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref?.();
      signal.addEventListener("abort", done);
      this.wake = done;
    });
  }
}

/** ExportTraceServiceResponse.partial_success.rejected_spans (an int64, so maybe a string). */
function rejectedSpans(text: string): number {
  if (!text.includes("rejected")) return 0;
  try {
    const parsed = JSON.parse(text) as { partialSuccess?: { rejectedSpans?: unknown } };
    const n = Number(parsed.partialSuccess?.rejectedSpans ?? 0);
    return Number.isFinite(n) && n > 0 ? n : 0;
  } catch {
    return 0;
  }
}
