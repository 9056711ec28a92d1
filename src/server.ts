// `gw serve`: lock the data dir -> store -> deps -> listen -> graceful stop (docs/availability.md
// "One owner" and "Shutdown"): readiness flips, listening stops, in-flight requests get a bounded
// grace, then are aborted; queued rows are flushed and every connection closed.
import { preloadTokenizer } from "./analysis/tokens.ts";
import { createApp } from "./http/app.ts";
import { bootstrapIfEmpty, firstRunBanner } from "./bootstrap.ts";
import { API_BASE_PATH } from "./config/constants.ts";
import type { Config } from "./config/env.ts";
import { buildDeps, closeStorage } from "./deps.ts";
import { type Deps } from "./pipeline/deps.ts";
import { Lifecycle } from "./http/lifecycle.ts";
import { startServices, type StartedServices } from "./lib/service.ts";
import { gwServices } from "./services.ts";
import { lockDataDir, type DataDirLock } from "./store/data-dir-lock.ts";
import { takeAppliedMigrations } from "./store/migrate.ts";
import type { SharedState } from "./store/shared.ts";
import { openSharedState } from "./shared-state.ts";
import { systemClock } from "./lib/clock.ts";
import { createLogger, flushLogger, type Logger } from "./observability/logger.ts";

/** Bun's own cap, never reached: gw refuses a declared length over its 10 MiB limit unread and
 * counts a chunked body as it streams (schema/validate.ts), in its envelope; Bun's own 413 would
 * leave without it (docs/availability.md "Request input"). */
const BUN_BODY_CAP = Number.MAX_SAFE_INTEGER;
/** Bun closes a connection idle this long (seconds). Requests that wait longer on purpose (an
 * upstream still thinking) lift it for themselves; streams send keep-alive comments. */
const IDLE_TIMEOUT_S = 30;
/** The longest a stop waits for the request log and ledger to be written. */
const FLUSH_LIMIT_MS = 10_000;
/** How long past the grace a stop may take before the process exits anyway (the promise: grace + 5 s). */
const HARD_STOP_MARGIN_MS = 4_000;
/** Past the grace, aborted requests get this long to record themselves before the log is flushed. */
const ABORT_SETTLE_MS = 2_000;
/** Lookups that time out (1 s each) while the sentence model still loads before readiness gives up on it. */
const MODEL_LOAD_TRIES = 60;

export interface RunningServer {
  url: string;
  deps: Deps;
  lifecycle: Lifecycle;
  stop(): Promise<void>;
}

/** The port is taken: listening fails with this instead of sharing it (no SO_REUSEPORT). */
export class PortInUse extends Error {
  constructor(host: string, port: number) {
    super(`Port ${port} on ${host} is already in use (another gw or another program). Stop it, or choose another port with --port or PORT.`);
  }
}

function listen(deps: Deps, config: Config, lifecycle: Lifecycle) {
  try {
    return createApp(deps, lifecycle).listen({
      port: config.port,
      hostname: config.host,
      maxRequestBodySize: BUN_BODY_CAP,
      idleTimeout: IDLE_TIMEOUT_S,
      // Elysia's Bun adapter turns SO_REUSEPORT on: a second gw would share the port silently.
      reusePort: false,
    });
  } catch (err) {
    const text = String((err as { code?: string })?.code ?? "") + String(err);
    if (text.includes("EADDRINUSE") || text.includes("in use")) throw new PortInUse(config.host, config.port);
    throw err;
  }
}

/** Readiness's provider check (docs/availability.md "Readiness"): a provider from the environment,
 * a project's own provider key, or a test key (test mode needs no provider). */
function noProvider(deps: Deps): string | null {
  if (deps.providers.enabled().length > 0) return null;
  const { projects, apiKeys, providerKeys } = deps.repos;
  for (const p of projects.list()) {
    if (apiKeys.listByProject(p.id).some((k) => k.revokedAt === null && k.mode === "test")) return null;
    if (providerKeys.list(p.id).length > 0) return null;
  }
  return "no provider: set one's key (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...), store a project's provider key, or issue a test key";
}

/** Loads the sentence model before readiness when a project uses the semantic cache, so its first
 * lookups do not miss while it loads: one lookup in a partition no answer is in. */
function loadSentenceModel(deps: Deps, lifecycle: Lifecycle): void {
  const { semantic, config, repos, logger } = deps;
  if (!semantic || config.semanticEmbedder !== "use") return;
  if (!repos.projects.list().some((p) => p.policy.semantic_cache === true)) return;
  const load = async () => {
    for (let tries = 1; ; tries++) {
      try {
        return void (await semantic.search("", "gw:readiness", "load the model"));
      } catch (err) {
        // A lookup times out while the model still loads: ask again. A model that cannot load is final.
        if (tries >= MODEL_LOAD_TRIES || !String(err).includes("timed out")) throw err;
      }
    }
  };
  lifecycle.until("sentence model loading", load().catch((err: unknown) =>
    logger.warn({ err }, "the sentence model did not load: semantic lookups miss until it does")));
}

export function startServer(config: Config, options: { deps?: Deps; quiet?: boolean; shared?: SharedState; logger?: Logger } = {}): RunningServer {
  const lock: DataDirLock = lockDataDir(config.dataDir);
  let deps: Deps;
  let app: ReturnType<typeof listen>;
  const lifecycle = new Lifecycle();
  // Until the store is open and migrated and the services (the log worker among them) have started.
  const started = Promise.withResolvers<void>();
  lifecycle.until("starting", started.promise);
  try {
    deps = options.deps ?? buildDeps(config, { shared: options.shared, logger: options.logger });
    // One line per migration this start applied (docs/deploy.md "Upgrades").
    for (const m of takeAppliedMigrations(deps.db.filename)) deps.logger.info({ migration: m.version, name: m.name, ms: m.ms }, "database migrated");
    // Test keys, rate limits and broken streams count tokens: loading the tables on the first
    // such request would stall every other request for a second or two.
    preloadTokenizer();
    lifecycle.storage = deps.storage;
    lifecycle.inFlight = deps.inFlight;
    lifecycle.providers = () => noProvider(deps);
    app = listen(deps, config, lifecycle);
  } catch (err) {
    // deps is unassigned when building it failed; one that was built gets its storage closed.
    const built = options.deps ? undefined : (deps! as Deps | undefined);
    if (built) void closeStorage(built, 1_000);
    lock.release();
    throw err;
  }
  // Multi-instance: projects and keys are made through the admin API (docs/scale-out.md).
  const boot = deps.shared ? null : bootstrapIfEmpty(deps.repos);
  if (deps.shared && !config.adminToken) deps.logger.warn("multi-instance mode without GW_ADMIN_TOKEN: this instance serves requests, but projects and keys can only be made through the admin API of an instance that has one (the offline admin commands refuse in this mode)");
  // Set when a stop begins; the flushes get what is left of it.
  let stopBy = Infinity;
  const flushMs = () => Math.max(500, Math.min(FLUSH_LIMIT_MS, stopBy - Date.now() - 500));
  // Started in this same task as listen, so before the first request is read.
  let services: StartedServices;
  try {
    services = startServices(gwServices(deps, lifecycle, flushMs, { rows: 0, ledger: 0 }), (err, service) =>
      deps.logger.error({ err, service }, "a service failed to start or stop"));
  } catch (err) {
    void app.server?.stop(true);
    lock.release();
    throw err;
  }
  void services.ready.then(started.resolve);
  loadSentenceModel(deps, lifecycle);
  const url = `http://${config.host}:${app.server!.port}${API_BASE_PATH}`;
  if (boot && !options.quiet) process.stdout.write(firstRunBanner(boot, url, `http://${config.host}:${app.server!.port}/`) + "\n");
  deps.logger.info({ url, providers: deps.providers.enabled(), data_dir: config.dataDir }, "gw listening");

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      // The whole stop fits in the grace plus the margin; the flush gets what is left of it.
      stopBy = Date.now() + config.shutdownTimeoutMs + HARD_STOP_MARGIN_MS;
      lifecycle.draining = true;
      // Stops listening at once; resolves when the requests in flight have ended.
      const finished = app.server!.stop(false);
      const inGrace = await Promise.race([finished.then(() => true), Bun.sleep(config.shutdownTimeoutMs).then(() => false)]);
      if (!inGrace) {
        const aborted = lifecycle.inFlight.abortAll("shutdown");
        deps.logger.warn({ aborted, grace_ms: config.shutdownTimeoutMs }, "gw stopping: requests still running after the grace period were aborted");
        // The aborted requests write their answers (503, or a stream's in-stream error) and are
        // recorded; connections still open after that are closed.
        await Promise.race([finished, Bun.sleep(ABORT_SETTLE_MS)]);
        await app.server?.stop(true);
      }
      // Every request has been recorded now: the services stop in reverse order (src/services.ts),
      // the request log and the ledger are written and what could not be is said loudly.
      await services.stop();
      lock.release();
      flushLogger(deps.logger);
    })());
  return { url, deps, lifecycle, stop };
}


export function serveUntilSignal(config: Config): number {
  let server: RunningServer | null = null;
  let signalled = false;
  const shutDown = (running: RunningServer) => {
    // Whatever happens in the stop, the process ends within the grace plus this margin.
    setTimeout(() => process.exit(1), config.shutdownTimeoutMs + HARD_STOP_MARGIN_MS).unref();
    running.stop().then(() => process.exit(0), () => process.exit(1));
  };
  // Installed before the server starts, so a signal during start-up is a clean stop too.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      // A second signal means now.
      if (signalled) process.exit(1);
      signalled = true;
      server?.deps.logger.info({ signal, grace_ms: config.shutdownTimeoutMs }, "gw stopping: finishing requests and flushing the request log");
      if (server) shutDown(server);
    });
  }
  const failed = (err: unknown) => {
    process.stderr.write(`gw: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  };
  if (config.stateMode === "multi-instance") {
    // PostgreSQL and Redis are connected and migrated before anything else opens.
    const logger = createLogger(config.logLevel);
    openSharedState(config, { clock: systemClock, logger }).then((shared) => {
      if (signalled) return void shared.close().then(() => process.exit(0));
      try {
        server = startServer(config, { shared, logger });
      } catch (err) {
        void shared.close();
        process.exit(failed(err));
      }
    }, (err) => process.exit(failed(err)));
    return -1;
  }
  try {
    server = startServer(config);
  } catch (err) {
    return failed(err);
  }
  if (signalled) shutDown(server);
  return -1;
}
