// Per-call latency of an embedder over a window of recent calls, for traces, metrics and the bench:
// the semantic lookup sits on the request path, so its cost must stay visible.

export interface LatencySnapshot {
  calls: number;
  timeouts: number;
  failures: number;
  /** Over the most recent calls (at most WINDOW), in milliseconds. */
  p50: number;
  p95: number;
  max: number;
}

const WINDOW = 512;

export class LatencyStats {
  private readonly recent = new Float64Array(WINDOW);
  private next = 0;
  private filled = 0;
  calls = 0;
  timeouts = 0;
  failures = 0;

  record(ms: number): void {
    this.calls++;
    this.recent[this.next] = ms;
    this.next = (this.next + 1) % WINDOW;
    if (this.filled < WINDOW) this.filled++;
  }

  snapshot(): LatencySnapshot {
    const sorted = this.recent.slice(0, this.filled).sort();
    const at = (q: number): number => (this.filled === 0 ? 0 : (sorted[Math.min(this.filled - 1, Math.floor(q * this.filled))] ?? 0));
    return { calls: this.calls, timeouts: this.timeouts, failures: this.failures, p50: at(0.5), p95: at(0.95), max: at(1) };
  }
}
