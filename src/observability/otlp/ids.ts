// OTLP trace and span ids derived from gw's own, never minted (docs/observability.md "Span model"):
// the same project and trace id give the same OTLP trace id in every process; the project is part
// of it, so two tenants never share a trace (docs/security.md "Admin").
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
