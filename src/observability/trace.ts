// Spans of a request (docs/api.md "Request detail"). Recorded and stored compactly, as tuples, so that
// writing a trace per request stays cheap; expandTrace() gives the documented shape on read.
// Times are milliseconds from the start of the request, rounded to microseconds.
import { sha256Hex } from "../lib/hash.ts";

export type SpanAttributes = Record<string, string | number | boolean | null>;

/** Stored form: [name, start_ms, duration_ms, error_code, attributes?]. */
export type StoredSpan = [string, number, number, string | null, SpanAttributes?];

export interface Span {
  span_id: string;
  parent_span_id: string | null;
  name: string;
  start_ms: number;
  duration_ms: number;
  status: "ok" | "error";
  error_code: string | null;
  attributes?: SpanAttributes;
}

export const round3 = (ms: number): number => Math.round(ms * 1000) / 1000;

export class SpanRecorder {
  readonly spans: StoredSpan[] = [];
  /** Steps timed without a span of their own (the call stage: its time is in its llm spans). */
  readonly timings: Record<string, number> = {};

  constructor(private readonly t0: number) {}

  now(): number {
    return performance.now() - this.t0;
  }

  add(name: string, startMs: number, endMs: number, errorCode: string | null, attributes?: SpanAttributes): void {
    const span: StoredSpan = [name, round3(startMs), round3(endMs - startMs), errorCode];
    if (attributes) span.push(attributes);
    this.spans.push(span);
  }

  /** The stored spans, the root `request` span first. */
  withRoot(durationMs: number, errorCode: string | null): StoredSpan[] {
    return [["request", 0, round3(durationMs), errorCode], ...this.spans];
  }
}

/** Span ids are derived from the request id, so they are stable across reads and cost nothing
 * to mint on the request path. */
const spanId = (requestId: string, index: number): string => sha256Hex(`${requestId}#${index}`).slice(0, 16);

/** Stored spans to the documented shape; `timings` per step (spans summed by name, llm apart). */
export function expandSpans(requestId: string, stored: StoredSpan[], parentSpanId: string | null) {
  const rootId = spanId(requestId, 0);
  const timings: Record<string, number> = {};
  const spans = stored.map(([name, start, duration, errorCode, attributes], i): Span => {
    if (i > 0 && name !== "llm") timings[name] = round3((timings[name] ?? 0) + duration);
    const span: Span = {
      span_id: i === 0 ? rootId : spanId(requestId, i),
      parent_span_id: i === 0 ? parentSpanId : rootId,
      name, start_ms: start, duration_ms: duration, status: errorCode ? "error" : "ok", error_code: errorCode,
    };
    if (attributes) span.attributes = attributes;
    return span;
  });
  return { spans, timings, total: stored[0]?.[2] ?? 0 };
}
