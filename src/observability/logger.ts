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

/** Where gw's lines go: stdout through Bun's native buffered writer, one syscall per ~64 KiB
 * under load, flushed every 200 ms so a quiet gateway's lines still appear at once. (sonic-boom,
 * pino's default, re-measures its whole pending buffer on every line when batching.) */
function stdoutDestination(): pino.DestinationStream & { flush(): void } {
  const sink = Bun.stdout.writer({ highWaterMark: 64 * 1024 });
  setInterval(() => sink.flush(), 200).unref();
  return {
    write: (line: string) => void sink.write(line),
    flush: () => void sink.flush(),
  };
}

/** Flushes a logger's buffered lines (on shutdown), tolerating destinations without flush. */
export function flushLogger(logger: Logger): void {
  try {
    logger.flush();
  } catch {
    // A destination that cannot flush has nothing buffered.
  }
}
