// pino JSON logs. Prompts and answers are never passed to the logger; the redaction paths are a
// second line of defence for headers and bodies that a future call site might hand it.
import "./diagnostics-polyfill.ts";
import pino, { type Logger } from "pino";

export type { Logger };

// Exact paths only: wildcard paths make pino walk every logged object on every line.
const REDACT = [
  "authorization", "headers.authorization", "req.headers.authorization",
  "messages", "content", "input", "body", "prompt", "api_key",
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  // Asynchronous writes never block a request; with no minimum length a quiet gateway's lines appear
  // at once, and under load sonic-boom coalesces lines written while a write is in flight.
  const dest = destination ?? pino.destination({ dest: 1, sync: false });
  return pino({ level, base: { service: "gw" }, redact: { paths: REDACT, censor: "[redacted]" } }, dest);
}

/** Flushes a logger's buffered lines (on shutdown), tolerating destinations without flush. */
export function flushLogger(logger: Logger): void {
  try {
    logger.flush();
  } catch {
    // A destination that cannot flush has nothing buffered.
  }
}
