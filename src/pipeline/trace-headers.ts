// X-Gw-Trace-Id and X-Gw-Parent-Span (docs/api.md "Request headers", "Limits"): read onto the
// request state, 400 naming the header when too long. Shared by every pipeline's parse stage.
import { LIMITS } from "../config/constants.ts";
import { invalidRequest } from "../errors/gw-error.ts";
import type { RequestState } from "./state.ts";

export function readTraceHeaders(state: RequestState): void {
  const traceId = state.http.headers.get("x-gw-trace-id");
  if (traceId !== null) {
    if (traceId.length === 0 || traceId.length > LIMITS.traceIdLength) {
      throw invalidRequest(`X-Gw-Trace-Id must be 1 to ${LIMITS.traceIdLength} characters.`, "X-Gw-Trace-Id");
    }
    state.traceId = traceId;
  }
  const parent = state.http.headers.get("x-gw-parent-span");
  if (parent !== null) {
    if (parent.length === 0 || parent.length > LIMITS.parentSpanLength) {
      throw invalidRequest(`X-Gw-Parent-Span must be 1 to ${LIMITS.parentSpanLength} characters.`, "X-Gw-Parent-Span");
    }
    state.parentSpanId = parent;
  }
}
