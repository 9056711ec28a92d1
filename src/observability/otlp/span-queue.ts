// The exporter's bounded queue of recorded requests, measured in spans (docs/observability.md
// "Export"). A ring buffer: push and drop-oldest are O(1) on the request path, whatever the size.
import type { RequestRecord } from "../../store/repos/requests.ts";

export class SpanQueue {
  private ring: Array<RequestRecord | undefined>;
  private head = 0;
  private count = 0;
  /** Spans held now. */
  spans = 0;
  /** Spans pushed out to make room since start. */
  dropped = 0;

  constructor(private readonly maxSpans: number) {
    this.ring = new Array(Math.min(maxSpans, 1024));
  }

  get size(): number {
    return this.count;
  }

  /** `spanCount` is spanCountOf(row), at least 1. */
  push(row: RequestRecord, spanCount: number): void {
    while (this.count > 0 && this.spans + spanCount > this.maxSpans) this.dropped += spanCountOf(this.shift());
    if (spanCount > this.maxSpans) {
      this.dropped += spanCount;
      return;
    }
    if (this.count === this.ring.length) this.grow();
    this.ring[(this.head + this.count) % this.ring.length] = row;
    this.count++;
    this.spans += spanCount;
  }

  /** Takes whole requests, oldest first, up to `maxSpans` spans (at least one request). */
  take(maxSpans: number): RequestRecord[] {
    const out: RequestRecord[] = [];
    let n = 0;
    while (this.count > 0) {
      const next = this.ring[this.head]!;
      const c = spanCountOf(next);
      if (out.length > 0 && n + c > maxSpans) break;
      out.push(this.shift()!);
      n += c;
    }
    return out;
  }

  private shift(): RequestRecord | undefined {
    if (this.count === 0) return undefined;
    const row = this.ring[this.head];
    this.ring[this.head] = undefined;
    this.head = (this.head + 1) % this.ring.length;
    this.count--;
    this.spans -= spanCountOf(row);
    return row;
  }

  /** Doubles up to what maxSpans could ever need (one span per request at worst). */
  private grow(): void {
    const next = new Array<RequestRecord | undefined>(Math.min(this.ring.length * 2, Math.max(this.maxSpans, this.ring.length + 1)));
    for (let i = 0; i < this.count; i++) next[i] = this.ring[(this.head + i) % this.ring.length];
    this.ring = next;
    this.head = 0;
  }
}

/** Spans a row will export: its stored spans (trace.spans is an array, so this is O(1)); none
 * when the detailed trace was sampled out, so a trace is exported whole or not at all. */
export function spanCountOf(row: RequestRecord | undefined): number {
  if (row?.trace?.sampled === false) return 0;
  const spans = row?.trace?.spans;
  return Array.isArray(spans) ? spans.length : 0;
}
