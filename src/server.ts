// `gw serve`: config -> store -> deps -> listen -> graceful stop (queued log rows are flushed).
import { createApp } from "./app.ts";
import { bootstrapIfEmpty, firstRunBanner } from "./bootstrap.ts";
import { API_BASE_PATH } from "./config/constants.ts";
import type { Config } from "./config/env.ts";
import { buildDeps, type Deps } from "./deps.ts";
import { flushLogger } from "./observability/logger.ts";
import { recoverInterruptedClaims, startIdempotencySweeper } from "./pipeline/idempotency.ts";

/** Bun's own cap sits above gw's 10 MiB limit, so gw answers oversized bodies in its envelope. */
const BUN_BODY_CAP = 32 * 1024 * 1024;
const DRAIN_LIMIT_MS = 10_000;
/** The OTLP exporter's last send; a collector that is down must not hold the stop up long. */
const OTLP_FLUSH_LIMIT_MS = 5_000;

export interface RunningServer {
  url: string;
  deps: Deps;
  stop(): Promise<void>;
}

export function startServer(config: Config, options: { deps?: Deps; quiet?: boolean } = {}): RunningServer {
  const deps = options.deps ?? buildDeps(config);
  const boot = bootstrapIfEmpty(deps.repos);
  // Before the first request: claims left running by a previous process can no longer finish.
  recoverInterruptedClaims(deps.repos.idempotency, deps.logger);
  const sweeper = startIdempotencySweeper(deps.repos.idempotency, deps.logger);
  // Rollup compaction and log retention run in the log worker, off the request thread.
  deps.logSink.maintain({ retentionDays: config.logRetentionDays });
  const app = createApp(deps).listen({ port: config.port, hostname: config.host, maxRequestBodySize: BUN_BODY_CAP });
  const url = `http://${config.host}:${app.server!.port}${API_BASE_PATH}`;
  if (boot && !options.quiet) process.stdout.write(firstRunBanner(boot, url) + "\n");
  deps.logger.info({ url, providers: deps.providers.enabled(), data_dir: config.dataDir }, "gw listening");

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      await app.stop(false);
      sweeper.stop();
      // Every request has been recorded now; queued spans get a bounded last send, alongside
      // the log drain below.
      const exported = deps.otlp?.shutdown(OTLP_FLUSH_LIMIT_MS);
      // The semantic index is saved (else rebuilt at the next start), then queued cache writes go
      // to disk before the database closes; a failure costs cache entries only.
      await deps.semantic?.close();
      try {
        deps.answers.close();
      } catch (err) {
        deps.logger.error({ err }, "response cache not fully written at shutdown");
      }
      // Bounded, so a stuck log can never keep the process from stopping; it is said loudly.
      const drained = await Promise.race([deps.logWriter.drain().then(() => true), Bun.sleep(DRAIN_LIMIT_MS).then(() => false)]);
      if (!drained) deps.logger.error({ pending: deps.logWriter.pending }, "request log not fully written at shutdown");
      await deps.logSink.close();
      await exported;
      // Ledger entries still queued (charges of the last requests) go to disk before it closes.
      deps.billing.stop();
      deps.db.close();
      flushLogger(deps.logger);
    })());
  return { url, deps, stop };
}

export function serveUntilSignal(config: Config): void {
  const server = startServer(config);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      server.deps.logger.info({ signal }, "gw stopping: finishing requests and flushing the request log");
      server.stop().then(() => process.exit(0), () => process.exit(1));
    });
  }
}
