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
  return pino({ level, base: { service: "gw" }, redact: { paths: REDACT, censor: "[redacted]" } }, destination ?? stdoutDestination());
}

/** Where gw's lines go: stdout, written asynchronously in batches of about 8 KiB (one syscall
 * instead of one per line under load), and flushed every 200 ms so a quiet gateway's lines still
 * appear at once for whoever watches them. */
function stdoutDestination(): pino.DestinationStream {
  const dest = pino.destination({ dest: 1, sync: false, minLength: 8 * 1024 });
  setInterval(() => dest.flush(), 200).unref();
  return dest;
}

/** Flushes a logger's buffered lines (on shutdown), tolerating destinations without flush. */
export function flushLogger(logger: Logger): void {
  try {
    logger.flush();
  } catch {
    // A destination that cannot flush has nothing buffered.
  }
}
