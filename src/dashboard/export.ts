// The request log's export (docs/dashboard.md "Request log"): the filtered rows as CSV or NDJSON,
// streamed one page per pull, so a long export never holds the event loop and other calls interleave.
import { logEntry } from "../observability/request-log-view.ts";
import type { ExportFormat, LogFilters } from "../schema/dashboard-requests.ts";
import type { RequestRecord } from "../store/repos/requests.ts";

/** A filtered page of the log: SQLite's requests repo, or PostgreSQL's (requests-routes.ts logPages). */
export interface LogPages {
  page(projectId: string, f: LogFilters): LogPageResult | Promise<LogPageResult>;
}
export interface LogPageResult { rows: RequestRecord[]; hasMore: boolean; nextCursor: string | null }

export const EXPORT_MAX_ROWS = 100_000;
/** Rows read per pull: large enough to keep the per-call overhead low, small enough to stay quick. */
const EXPORT_PAGE = 500;

/** Columns of the CSV, in order: the log entry's fields, the error flattened. */
export const CSV_COLUMNS = [
  "request_id", "trace_id", "created_at", "requested_model", "selected_model", "provider", "task", "task_subtype",
  "input_tokens", "output_tokens", "cost", "saved", "cache", "status", "error_code", "error_message", "error_category",
  "latency_ms", "ttft_ms", "fallbacks", "workflow_id", "step", "tags", "endpoint", "stream", "test",
] as const;

/** One CSV cell (RFC 4180). Text a spreadsheet would run as a formula gets a leading ' (OWASP
 * "CSV injection"); numbers and booleans are gw's own and stay as they are. */
export function csvCell(value: string | number | boolean | null): string {
  if (value === null) return "";
  if (typeof value !== "string") return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRow(r: RequestRecord): string {
  const e = logEntry(r);
  const cells: Record<(typeof CSV_COLUMNS)[number], string | number | boolean | null> = {
    ...e, error_code: e.error?.code ?? null, error_message: e.error?.message ?? null, tags: JSON.stringify(e.tags),
  };
  return `${CSV_COLUMNS.map((c) => csvCell(cells[c])).join(",")}\r\n`;
}

const ndjsonRow = (r: RequestRecord): string => `${JSON.stringify(logEntry(r))}\n`;

/** The export's body: a header row for CSV, then page after page until the filtered rows or
 * `maxRows` run out. The first page is read when the stream is first pulled. */
export function exportStream(
  repo: LogPages, projectId: string, filters: LogFilters, format: ExportFormat,
  { maxRows = EXPORT_MAX_ROWS, pageSize = EXPORT_PAGE } = {},
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const encode = format === "csv" ? csvRow : ndjsonRow;
  let after = filters.after;
  let sent = 0;
  let header = format === "csv";
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // A page whose scan window held no match adds nothing: read on, as a pull must enqueue.
      for (;;) {
        // One turn of the event loop between pages: other requests run between them.
        await new Promise<void>((resolve) => setImmediate(resolve));
        let text = header ? `${CSV_COLUMNS.join(",")}\r\n` : "";
        header = false;
        const limit = Math.min(pageSize, maxRows - sent);
        const page = await repo.page(projectId, { ...filters, limit, after });
        for (const r of page.rows) text += encode(r);
        sent += page.rows.length;
        after = page.nextCursor ?? undefined;
        const done = !page.hasMore || sent >= maxRows;
        if (text !== "") controller.enqueue(encoder.encode(text));
        if (done) return controller.close();
        if (text !== "") return;
      }
    },
  }, { highWaterMark: 0 });
}
