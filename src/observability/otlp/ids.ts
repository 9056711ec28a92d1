// OTLP trace and span ids for gw's own ids (docs/observability.md "Export"). Derived, never
// minted: the same gw trace id always gives the same OTLP trace id, so requests that share
// X-Gw-Trace-Id share one OpenTelemetry trace, in every process and after a restart.
import { sha256Hex } from "../../lib/hash.ts";

const TRACE_HEX = /^[0-9a-f]{32}$/;
const SPAN_HEX = /^[0-9a-f]{16}$/;
const ZERO = /^0+$/;

/** 16 bytes as 32 hex digits. A caller id that already is a valid W3C trace id (32 lower-case
 * hex, not all zeros) is kept, so gw's spans join the caller's own OpenTelemetry trace. */
export function otlpTraceId(gwTraceId: string): string {
  if (TRACE_HEX.test(gwTraceId) && !ZERO.test(gwTraceId)) return gwTraceId;
  return sha256Hex(`trace:${gwTraceId}`).slice(0, 32);
}

/** 8 bytes as 16 hex digits, for the caller's X-Gw-Parent-Span; a W3C span id is kept as is. */
export function otlpParentSpanId(callerSpan: string): string {
  if (SPAN_HEX.test(callerSpan) && !ZERO.test(callerSpan)) return callerSpan;
  return sha256Hex(`span:${callerSpan}`).slice(0, 16);
}
