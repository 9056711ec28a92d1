// Spans and the trace document of a request (gateway-api.md 2.2). Times are milliseconds from the
// start of the request, rounded to microseconds.
import { newSpanId } from "../lib/ids.ts";

export interface Span {
  span_id: string;
  parent_span_id: string | null;
  name: string;
  start_ms: number;
  duration_ms: number;
  status: "ok" | "error";
  error_code: string | null;
  attributes?: Record<string, string | number | boolean | null>;
}

export const round3 = (ms: number): number => Math.round(ms * 1000) / 1000;

export class SpanRecorder {
  readonly rootId = newSpanId();
  readonly spans: Span[] = [];
  readonly timings: Record<string, number> = {};

  constructor(private readonly t0: number) {}

  now(): number {
    return performance.now() - this.t0;
  }

  /** Records a finished span; pipeline steps also land in `timings`. */
  add(name: string, startMs: number, endMs: number, errorCode: string | null, attributes?: Span["attributes"]): Span {
    const span: Span = {
      span_id: newSpanId(),
      parent_span_id: this.rootId,
      name,
      start_ms: round3(startMs),
      duration_ms: round3(endMs - startMs),
      status: errorCode ? "error" : "ok",
      error_code: errorCode,
    };
    if (attributes) span.attributes = attributes;
    this.spans.push(span);
    if (name !== "llm") this.timings[name] = round3((this.timings[name] ?? 0) + (endMs - startMs));
    return span;
  }

  /** The root `request` span, first in the list; child of the caller's span when one was sent. */
  root(parentSpanId: string | null, durationMs: number, errorCode: string | null): Span[] {
    const root: Span = {
      span_id: this.rootId,
      parent_span_id: parentSpanId,
      name: "request",
      start_ms: 0,
      duration_ms: round3(durationMs),
      status: errorCode ? "error" : "ok",
      error_code: errorCode,
    };
    return [root, ...this.spans];
  }
}
