// GET /dashboard/api/requests and its export (docs/dashboard.md "Request log"): the query strings,
// checked and converted here so a bad value answers 400 naming the param.
import { ERROR_CODES } from "../errors/codes.ts";
import { invalidRequest } from "../errors/gw-error.ts";
import { parseRequestsQuery, type RequestFilters } from "./requests.ts";

export const DASHBOARD_PAGE_DEFAULT = 50;
export const CACHE_FILTERS = ["exact", "semantic", "miss"] as const;
export type CacheFilter = (typeof CACHE_FILTERS)[number];
export const EXPORT_FORMATS = ["csv", "ndjson"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** GET /v1/requests's filters plus the dashboard's; `from`/`to` are ms, `to` inclusive. */
export interface LogFilters extends RequestFilters {
  provider?: string | undefined;
  cache?: CacheFilter | undefined;
  errorCategory?: string | undefined;
  tag?: string | undefined;
  task?: string | undefined;
  test?: boolean | undefined;
  from?: number | undefined;
  to?: number | undefined;
}

const ERROR_CATEGORIES: ReadonlySet<string> = new Set(Object.values(ERROR_CODES).map((c) => c.category));
const MAX_TEXT = 200;
/** Ids carry 48 bits of ms (lib/ids.ts): later times cannot be a range bound. */
const MAX_TIME_MS = 2 ** 48 - 1;

function oneOf<T extends string>(value: string | undefined, name: string, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  const found = allowed.find((a) => a === value);
  if (found === undefined) throw invalidRequest(`'${name}' must be one of ${allowed.join(", ")}.`, name);
  return found;
}

function text(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (value.length === 0 || value.length > MAX_TEXT) throw invalidRequest(`'${name}' must be 1 to ${MAX_TEXT} characters.`, name);
  return value;
}

/** An ISO 8601 date-time or epoch milliseconds. */
function time(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = /^\d{1,15}$/.test(value) ? Number(value) : /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms) || ms < 0 || ms > MAX_TIME_MS) {
    throw invalidRequest(`'${name}' must be an ISO 8601 date-time or epoch milliseconds.`, name);
  }
  return ms;
}

export function parseLogFilters(query: Record<string, string | undefined>): LogFilters {
  const base = parseRequestsQuery({ ...query, limit: query.limit ?? String(DASHBOARD_PAGE_DEFAULT) });
  const errorCategory = text(query.error_category, "error_category");
  if (errorCategory !== undefined && !ERROR_CATEGORIES.has(errorCategory)) {
    throw invalidRequest(`'error_category' must be one of ${[...ERROR_CATEGORIES].join(", ")}.`, "error_category");
  }
  const test = oneOf(query.test, "test", ["true", "false"]);
  const from = time(query.from, "from");
  const to = time(query.to, "to");
  if (from !== undefined && to !== undefined && from > to) throw invalidRequest("'from' must not be after 'to'.", "from");
  return {
    ...base,
    provider: text(query.provider, "provider"),
    cache: oneOf(query.cache, "cache", CACHE_FILTERS),
    errorCategory,
    tag: text(query.tag, "tag"),
    task: text(query.task, "task"),
    test: test === undefined ? undefined : test === "true",
    from,
    to,
  };
}

export function parseExportFormat(value: string | undefined): ExportFormat {
  return oneOf(value, "format", EXPORT_FORMATS) ?? "csv";
}
