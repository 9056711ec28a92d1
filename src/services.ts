// gw's long-lived services, listed once in start order; a stop runs them in reverse (docs/
// availability.md "Shutdown"): the database closes last, after every writer and the OTLP send.
import { keepRateLimits, loadRateLimits } from "./billing/rate-limit-state.ts";
import { SharedRateLimiter } from "./billing/rate-limit-shared.ts";
import { SharedProviderHealth } from "./routing/health-shared.ts";
import { startIdleGc } from "./http/idle-gc.ts";
import type { Lifecycle } from "./http/lifecycle.ts";
import type { Service } from "./lib/service.ts";
import { recoverInterruptedClaims, startIdempotencySweeper } from "./pipeline/idempotency.ts";
import type { Deps } from "./pipeline/deps.ts";
import { decodeLogBatch } from "./store/log-batch-codec.ts";
import { drainToShared } from "./store/log-shared-sink.ts";
import { followFeedbackSums, sharedFeedbackStore } from "./store/postgres/feedback.ts";
import { leaderService } from "./store/postgres/leader-jobs.ts";
import { followSsoClients, postgresSsoStore } from "./store/postgres/sso.ts";

/** What a stop could not write: request-log rows and ledger entries (0 and 0 after a clean stop). */
export interface Unwritten {
  rows: number;
  ledger: number;
}

/** The OTLP exporter's last send; a collector that is down must not hold the stop up long. */
const OTLP_FLUSH_LIMIT_MS = 5_000;

const noop = (): void => {};

/** A service over a start/stop pair that has no object of its own (a timer, a saver). */
function timed(name: string, begin: () => { stop(): void }): Service {
  let running: { stop(): void } | null = null;
  return {
    name,
    start: () => void (running ??= begin()),
    stop: async () => {
      running?.stop();
      running = null;
    },
  };
}

/** The store's services: what closeStorage stops too, without a server. `flushMs` is read when a
 * stop begins (what is left of the stop's time); `left` receives what could not be written. An
 * `exporter` given stops after the writers, before the database. */
export function storageServices(deps: Deps, flushMs: () => number, left: Unwritten, exporter?: Service): Service[] {
  const { db, storage, billing, logWriter, logSink, repos, logger, shared } = deps;
  return [
    // Multi-instance: PostgreSQL and Redis close after everything that writes to them.
    ...(shared ? [{ name: "shared state", start: noop, stop: () => shared.close() }] : []),
    // Multi-instance: the tenant mirror's bus and periodic reload (docs/scale-out.md).
    ...(shared ? [{ name: "tenant mirror", start: () => shared.mirror.start(), stop: () => shared.mirror.stop() }] : []),
    {
      name: "database",
      start: noop,
      stop: async () => {
        try {
          db.run("PRAGMA wal_checkpoint(TRUNCATE)");
        } catch (err) {
          logger.error({ err }, "WAL checkpoint at shutdown failed; the -wal file holds the latest writes");
        }
        db.close(false);
      },
    },
    ...(exporter ? [exporter] : []),
    { name: "storage health", start: () => void storage.start(), stop: async () => storage.stop() },
    {
      name: "billing",
      // Holds a previous process left open are released before this one serves (docs/billing.md).
      start: () => {
        billing.recover();
        billing.startCreditPoll();
      },
      stop: async () => {
        billing.stop();
        // Charges still pending here were handed to a log writer that never committed them.
        left.ledger = billing.writer.pending + billing.pending.size;
        if (left.ledger > 0) logger.error({ entries: left.ledger }, "ledger entries not written at shutdown");
      },
    },
    {
      name: "request log",
      // Rollup compaction and log retention run in the log worker, off the request thread
      // (multi-instance: no worker, the leader keeps PostgreSQL's log; maintain is a no-op).
      start: () => logSink.maintain({ retentionDays: deps.config.logRetentionDays }),
      stop: shared ? async () => {
        left.rows = await drainToShared(logWriter, shared.logs, flushMs(), {
          rejected: (ids) => logger.error({ rows: ids.length, ids }, "request log rows rejected at shutdown"),
          strayLedger: (entries) => logger.error({ entries }, "ledger entries not written: in the multi-instance mode charges are PostgreSQL's"),
          lost: (err, rows) => logger.error({ err, rows }, "request log rows not written at shutdown"),
          tracesLeft: () => logger.error("traces not all written at shutdown (their rows are stored)"),
        });
      } : async () => {
        await logWriter.drainWithin(flushMs());
        await logSink.close();
        // Rows the worker did not commit (it failed or ran out of time): one last try on this thread.
        const rest = logWriter.takeQueued();
        if (rest.text) {
          try {
            // Rows rejected by a constraint are not written (a gw bug, logged); their charges are.
            const rejected = repos.requests.insertPrepared(decodeLogBatch(rest.text));
            if (rejected.length > 0) logger.error({ rows: rejected.length, ids: rejected }, "request log rows rejected at shutdown");
            rest.rows = rejected.length;
            for (const c of rest.charges ?? []) c.committed();
          } catch (err) {
            logger.error({ err, rows: rest.rows }, "request log rows not written at shutdown");
            // The rows are lost; their charges are not: the ledger writer's last flush (billing, next) takes them.
            for (const c of rest.charges ?? []) c.notCarried();
          }
        }
        left.rows = rest.rows;
      },
    },
  ];
}

/** Every service of a serving gw, in start order. */
export function gwServices(deps: Deps, lifecycle: Lifecycle, flushMs: () => number, left: Unwritten): Service[] {
  const { logger, config, otlp, semantic, answers } = deps;
  // The last send of queued spans begins once every request is recorded ("otlp last send" below),
  // runs alongside the flushes, and is awaited before the database closes (docs/observability.md
  // "Shutdown"). shutdown() is idempotent: both entries share one send.
  const lastSend = otlp ? () => otlp.shutdown(Math.min(OTLP_FLUSH_LIMIT_MS, flushMs())) : null;
  const services = storageServices(deps, flushMs, left, lastSend ? { name: "otlp exporter", start: noop, stop: lastSend } : undefined);
  services.push({
    name: "response cache",
    start: () => answers.startSweeper(),
    // Queued cache writes go to disk before the database closes; a failure costs cache entries only.
    stop: async () => {
      try {
        await answers.close();
      } catch (err) {
        logger.error({ err }, "response cache not fully written at shutdown");
      }
    },
  });
  // The index is saved (else rebuilt at the next start), within what is left of the stop's time.
  if (semantic) services.push({ name: "semantic index", start: () => semantic.start(), stop: () => Promise.race([semantic.close(), Bun.sleep(flushMs())]) });
  if (lastSend) services.push({ name: "otlp last send", start: noop, stop: async () => void lastSend().catch(noop) });
  services.push(
    timed("idempotency sweeper", () => {
      // Before the first request: claims left running by a previous process can no longer finish.
      recoverInterruptedClaims(deps.repos.idempotency, logger);
      return startIdempotencySweeper(deps.repos.idempotency, logger, undefined, deps.clock);
    }),
    // Rate limits carry over a restart (docs/rate-limits.md "Restarts").
    timed("rate-limit state", () => {
      const kept = loadRateLimits(deps.rateLimits, config.dataDir, deps.clock, (err) => logger.warn({ err }, "saved rate-limit state not read; limits start full"));
      if (kept > 0) logger.info({ cells: kept }, "rate-limit state restored");
      return keepRateLimits(deps.rateLimits, config.dataDir, deps.clock, (err) => logger.warn({ err }, "rate-limit state not saved"));
    }),
    timed("idle gc", () => startIdleGc(lifecycle, () => deps.logSink.collect())),
  );
  // Multi-instance: the leader evaluates alert rules in PostgreSQL (one of shared.leaderJobs), so no
  // instance runs this timer (docs/scale-out.md).
  if (!deps.shared) services.push({ name: "alert rules", start: () => deps.alerts.start(), stop: () => deps.alerts.stop() });
  // Multi-instance: every instance dispatches, claiming due rows in PostgreSQL (docs/scale-out.md).
  services.push(
    { name: "webhook dispatcher", start: () => deps.webhooks.start(), stop: () => deps.webhooks.stop() },
    { name: "event sources", start: () => deps.eventSources.start(), stop: () => deps.eventSources.stop() },
  );
  const { shared } = deps;
  // The instance heartbeat and the circuit-flag poll end before "shared state" closes (leaving the
  // heartbeat set at once, so the others' share of a limit grows without waiting for it to go stale).
  if (shared) services.push({
    name: "shared limits and circuit flags",
    start: noop,
    stop: async () => {
      if (deps.health instanceof SharedProviderHealth) deps.health.stop();
      if (deps.rateLimits instanceof SharedRateLimiter) await deps.rateLimits.stop();
    },
  });
  // Multi-instance: every instance's ratings reach this one's router (docs/scale-out.md).
  if (shared) services.push(timed("feedback sums", () => followFeedbackSums(sharedFeedbackStore(shared.pg), (sums) => deps.feedback.set(sums),
    { onError: (err) => logger.error({ err }, "feedback sums not read from PostgreSQL (tried again each poll)") })));
  // Multi-instance: this instance's copy of the SSO clients, for the dashboard's session checks (docs/scale-out.md).
  if (shared) services.push(timed("sso clients", () => followSsoClients(postgresSsoStore(shared.pg), deps.repos.projectSso,
    { onError: (err) => logger.error({ err }, "SSO clients not read from PostgreSQL (tried again each poll)") })));
  // Multi-instance: one instance runs the periodic jobs (docs/scale-out.md "Leader"); it stops, and
  // unlocks, before "shared state" closes.
  if (shared && config.databaseUrl) {
    services.push(leaderService({
      url: config.databaseUrl, instance: shared.instanceId, now: () => deps.clock.now(), log: logger, money: shared.money,
      retentionDays: config.logRetentionDays, requestTimeoutMs: config.requestTimeoutMs, extra: shared.leaderJobs,
    }));
  }
  return services;
}
