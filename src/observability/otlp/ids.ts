// OTLP trace and span ids for gw's own ids (docs/observability.md "Export"). Derived, never
// minted: the same project and gw trace id always give the same OTLP trace id, so one project's
// requests that share X-Gw-Trace-Id share one OpenTelemetry trace, in every process and after a
// restart. The project is part of it: two tenants choosing the same id never share a trace in
// the operator's backend (docs/security.md "Admin").
import { sha256Hex } from "../../lib/hash.ts";

const TRACE_HEX = /^[0-9a-f]{32}$/;
const SPAN_HEX = /^[0-9a-f]{16}$/;
const ZERO = /^0+$/;

/** 16 bytes as 32 hex digits, from the project and gw's trace id (`trc_...` or the caller's). */
export function otlpTraceId(projectId: string, gwTraceId: string): string {
  return sha256Hex(`trace:${projectId}\n${gwTraceId}`).slice(0, 32);
}

/** A caller's id that is a valid W3C trace id (32 lower-case hex, not all zeros). */
export const isW3cTraceId = (id: string): boolean => TRACE_HEX.test(id) && !ZERO.test(id);
/** A caller's id that is a valid W3C span id (16 lower-case hex, not all zeros). */
export const isW3cSpanId = (id: string): boolean => SPAN_HEX.test(id) && !ZERO.test(id);

/** 8 bytes as 16 hex digits, for the caller's X-Gw-Parent-Span; a W3C span id is kept as is. */
export function otlpParentSpanId(callerSpan: string): string {
  if (isW3cSpanId(callerSpan)) return callerSpan;
  return sha256Hex(`span:${callerSpan}`).slice(0, 16);
}
