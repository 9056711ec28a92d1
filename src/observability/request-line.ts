// The one info line per request, written by hand in pino's line format: pino's generic path cost
// ~5 µs per request, this well under one. Its fields are ids, codes and numbers, and on a failure
// gw's log message (never content; docs/config.md "Errors that lead to the cause").
import pino, { type Logger } from "pino";

export interface RequestLineFields {
  request_id: string;
  project_id: string;
  endpoint: string;
  status: number;
  model: string | null;
  provider: string | null;
  latency_ms: number;
  fallbacks: number;
  error_code: string | null;
  /** The error's log message (the request log's `error.message`), null on success. */
  error_message: string | null;
  test: boolean;
}

type Destination = { write(line: string): unknown };

const str = (v: string | null): string => (v === null ? "null" : JSON.stringify(v));

/** The JSON text of values that repeat from line to line (project, endpoint, model, provider,
 * error code), made once each; cleared when full, so many projects cannot grow it without end. */
const repeated = new Map<string, string>();
function quoted(v: string | null): string {
  if (v === null) return "null";
  let text = repeated.get(v);
  if (text === undefined) {
    if (repeated.size >= 4096) repeated.clear();
    text = JSON.stringify(v);
    repeated.set(v, text);
  }
  return text;
}

/** Writes the line when info is enabled; the same keys and order as `logger.info(fields, "request")`. */
export function writeRequestLine(logger: Logger, f: RequestLineFields): void {
  if (!logger.isLevelEnabled("info")) return;
  const internals = logger as unknown as Record<symbol, unknown>;
  const stream = internals[pino.symbols.streamSym] as Destination;
  // pid, hostname and the base bindings, already serialised by pino as `,"key":value...`.
  const bindings = internals[pino.symbols.chindingsSym] as string;
  stream.write(
    `{"level":30,"time":${Date.now()}${bindings},"request_id":${str(f.request_id)},"project_id":${quoted(f.project_id)}` +
      `,"endpoint":${quoted(f.endpoint)},"status":${f.status},"model":${quoted(f.model)},"provider":${quoted(f.provider)}` +
      `,"latency_ms":${f.latency_ms},"fallbacks":${f.fallbacks},"error_code":${quoted(f.error_code)},"error_message":${str(f.error_message)},"test":${f.test}` +
      `,"msg":"request"}\n`,
  );
}
