// The SQL of a filtered request-log page (docs/dashboard.md "Request log"): the filter with the most
// selective index drives the scan, the others are tested on its rows, and no call examines more
// than a window of rows, so every filter combination answers in bounded time.
import { requestIdAt } from "../../lib/ids.ts";
import type { LogFilters } from "../../schema/dashboard-requests.ts";

/** Rows one call may examine when filters are tested on rows read in key order from the table
 * itself, and on rows reached through an index (a b-tree lookup each, often a page read: several
 * times costlier). Either window takes at most about 20 ms of CPU on 1M rows (bench/dashboard-filters.ts). */
export const SCAN_WINDOW = 20_000;
export const LOOKUP_WINDOW = 2_000;

export type SqlParams = Record<string, string | number>;

export interface PagePlan {
  /** Newest first, at most `limit + 1` rows of `requests`. */
  pageSql: string;
  /** With filters tested on rows: the id of the window's last row, or none when the driving
   * range ends within the window. Null when the page itself is the whole answer. */
  boundarySql: string | null;
  params: SqlParams;
  /** The driving index (or `primary key`), for tests and the bench. */
  driver: string;
}

interface Term {
  /** Index on (project_id, <column>, id) that serves the term, `tags` for request_tags, or "" for none. */
  index: string;
  /** The term as a condition on requests' columns (unqualified). */
  sql: string;
  /** The column the condition reads ("" for the tag, which reads request_tags). */
  column: string;
}

/** Filters as SQL terms, most selective first (typical logs: a trace or workflow has a handful of
 * rows, a tag or error category few, a model many, status 200 nearly all), then the unindexed. */
function termsOf(f: LogFilters, params: SqlParams): Term[] {
  const terms: Term[] = [];
  /** `column = $param`, or a fixed condition when `value` is undefined. */
  const add = (index: string, column: string, param: string, value: string | number | undefined, sql = `${column} = $${param}`) => {
    if (value !== undefined) params[param] = value;
    terms.push({ index, sql, column });
  };
  if (f.traceId !== undefined) add("requests_project_trace", "trace_id", "trace_id", f.traceId);
  if (f.workflowId !== undefined) add("requests_project_workflow", "workflow_id", "workflow_id", f.workflowId);
  if (f.tag !== undefined) add("tags", "", "tag", f.tag, "");
  if (f.errorCategory !== undefined) add("requests_project_error_category", "error_category", "error_category", f.errorCategory);
  if (f.status !== undefined && f.status !== 200) add("requests_project_status", "status", "status", f.status);
  if (f.cache === "exact" || f.cache === "semantic") add("requests_project_cache", "cache", "cache", f.cache);
  if (f.test === true) add("requests_project_test", "test", "", undefined, "test = 1");
  if (f.model !== undefined) add("requests_project_model", "selected_model", "model", f.model);
  // No index serves these (status 200: nearly every row, so the table's own order finds them
  // faster than an index and a lookup per row): they are only ever tested on rows.
  if (f.status === 200) add("", "status", "status", 200);
  if (f.task !== undefined) add("", "task", "task", f.task);
  if (f.provider !== undefined) add("", "provider", "provider", f.provider);
  if (f.cache === "miss") add("", "cache", "", undefined, "cache IS NULL");
  if (f.test === false) add("", "test", "", undefined, "test = 0");
  return terms;
}

const TAG_TEST = "EXISTS (SELECT 1 FROM request_tags t WHERE t.project_id = $project_id AND t.tag = $tag AND t.request_id = w.k)";

export function planFilteredPage(projectId: string, f: LogFilters, window?: number): PagePlan {
  const params: SqlParams = { project_id: projectId, limit: f.limit + 1 };
  const terms = termsOf(f, params);
  const driver = terms[0]?.index ? terms[0] : null;
  const rest = driver ? terms.slice(1) : terms;

  // The driving scan: one index range (project, value, id) in id order, bounded by the cursor and
  // the time range (ids sort by time: lib/ids.ts requestIdAt).
  const idCol = driver?.index === "tags" ? "t.request_id" : "r.id";
  const range: string[] = [];
  if (f.after !== undefined) (range.push(`${idCol} < $after`), (params.after = f.after));
  if (f.from !== undefined) (range.push(`${idCol} >= $lo`), (params.lo = requestIdAt(f.from)));
  if (f.to !== undefined) (range.push(`${idCol} < $hi`), (params.hi = requestIdAt(f.to + 1)));

  let source: string;
  let keyed: string;
  if (driver?.index === "tags") {
    source = "request_tags t CROSS JOIN requests r ON r.project_id = t.project_id AND r.id = t.request_id";
    keyed = "t.project_id = $project_id AND t.tag = $tag";
  } else {
    source = driver ? `requests r INDEXED BY ${driver.index}` : "requests r NOT INDEXED";
    keyed = ["r.project_id = $project_id", ...(driver ? [`r.${driver.sql}`] : [])].join(" AND ");
  }
  const where = [keyed, ...range].join(" AND ");
  const name = driver?.index ?? "primary key";
  if (rest.length === 0) {
    return { pageSql: `SELECT r.* FROM ${source} WHERE ${where} ORDER BY ${idCol} DESC LIMIT $limit`, boundarySql: null, params, driver: name };
  }

  // The window is a subquery with its own LIMIT: SQLite runs it as a co-routine in id order, so
  // the outer query stops at the page's last row, and never reads past the window's. The outer
  // ORDER BY names the inner one's key (k), so SQLite keeps that order instead of sorting. The
  // window reads only the tested columns; whole rows are read for the page's rows alone.
  const columns = [...new Set(rest.map((t) => t.column).filter((c) => c !== ""))];
  const windowSource = columns.length === 0 && driver?.index === "tags" ? "request_tags t" : source;
  const scan = `SELECT ${[`${idCol} AS k`, ...columns.map((c) => `r.${c}`)].join(", ")} FROM ${windowSource} WHERE ${where} ORDER BY k DESC`;
  const rows = window ?? (driver ? LOOKUP_WINDOW : SCAN_WINDOW);
  params.window = rows;
  params.window_last = rows - 1;
  const tests = rest.map((t) => (t.index === "tags" ? TAG_TEST : `w.${t.sql}`)).join(" AND ");
  const pageSql = `SELECT r.* FROM (${scan} LIMIT $window) w CROSS JOIN requests r ON r.project_id = $project_id AND r.id = w.k `
    + `WHERE ${tests} ORDER BY w.k DESC LIMIT $limit`;
  const boundarySource = driver?.index === "tags" ? "request_tags t" : source;
  const boundarySql = `SELECT ${idCol} AS id FROM ${boundarySource} WHERE ${where} ORDER BY ${idCol} DESC LIMIT 1 OFFSET $window_last`;
  return { pageSql, boundarySql, params, driver: name };
}
