// GET /requests query (docs/api.md "Request log", "Limits"): strings from the URL, checked and
// converted here so an out-of-range value answers 400 naming the param.
import { LIMITS } from "../config/constants.ts";
import { invalidRequest } from "../errors/gw-error.ts";

/** A page of the request log: the store reads it (store/repos/requests.ts). */
export interface RequestFilters {
  limit: number;
  after?: string | undefined;
  model?: string | undefined;
  status?: number | undefined;
  workflowId?: string | undefined;
  traceId?: string | undefined;
}

const MAX_FILTER_LENGTH = 200;

function intParam(value: string | undefined, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw invalidRequest(`'${name}' must be an integer from ${min} to ${max}.`, name);
  }
  return n;
}

function textParam(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (value.length === 0 || value.length > MAX_FILTER_LENGTH) {
    throw invalidRequest(`'${name}' must be 1 to ${MAX_FILTER_LENGTH} characters.`, name);
  }
  return value;
}

export function parseRequestsQuery(query: Record<string, string | undefined>): RequestFilters {
  return {
    limit: intParam(query.limit, "limit", 1, LIMITS.requestsPageMax) ?? LIMITS.requestsPageDefault,
    after: textParam(query.after, "after"),
    model: textParam(query.model, "model"),
    status: intParam(query.status, "status", 100, 599),
    workflowId: textParam(query.workflow_id, "workflow_id"),
    traceId: textParam(query.trace_id, "trace_id"),
  };
}
