// Everything the request path needs, built once at start and injected (docs/architecture.md "Lifecycle").
import type { Database } from "bun:sqlite";
import type { Deps, Repos } from "./pipeline/deps.ts";
import { createInFlight } from "./pipeline/in-flight.ts";
import { MinuteQuota } from "./lib/minute-quota.ts";
import { systemClock, type Clock } from "./lib/clock.ts";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AuthCache } from "./auth/auth-cache.ts";
import { SqliteAnswerStore } from "./cache/answer-store.ts";
import type { AnswerStore } from "./cache/answer-store-types.ts";
import type { Config } from "./config/env.ts";
import { createLogger, type Logger } from "./observability/logger.ts";
import { OtlpExporter } from "./observability/otlp/exporter.ts";
import { PrometheusMetrics } from "./observability/prometheus-metrics.ts";
import { loadSecretKey, secretBox, type SecretBox } from "./lib/secret-box.ts";
import { ProjectProviders } from "./providers/project-providers.ts";
import { ADAPTER_IDS, buildRegistry, transportOf, type ProviderRegistry } from "./providers/registry.ts";
import { sandboxProvider } from "./providers/sandbox/index.ts";
import type { Provider } from "./providers/types.ts";
import { buildCatalog, type Catalog } from "./routing/catalog.ts";
import { FeedbackQuality } from "./routing/feedback-quality.ts";
import { sharedInvoiceEventsJob } from "./billing/invoices.ts";
import { postgresInvoiceLedger } from "./store/postgres/invoices.ts";
import { modelKey, ProviderHealth } from "./routing/health.ts";
import { SharedProviderHealth } from "./routing/health-shared.ts";
import { SessionStore } from "./routing/sessions.ts";
import { SharedSessionStore } from "./routing/sessions-shared.ts";
import { WorkflowBudgets } from "./routing/workflow-budgets.ts";
import { RateLimiter } from "./billing/rate-limit.ts";
import { SharedRateLimiter } from "./billing/rate-limit-shared.ts";
import { InstanceCount } from "./store/redis/instances.ts";
import type { SemanticCache } from "./cache/semantic-types.ts";
import { EmbeddedSemanticCache } from "./cache/semantic-cache.ts";
import { SharedSemanticCache } from "./cache/semantic-shared.ts";
import { redisSemanticStream } from "./store/redis/semantic-stream.ts";
import { postgresSemanticVectors } from "./store/postgres/semantic-vectors.ts";
import type { IndexStats } from "./cache/vector-index.ts";
import { createEmbedder } from "./cache/embedder/create-embedder.ts";
import { providerEmbedder } from "./cache/provider-embed.ts";
import { AliasError } from "./routing/aliases.ts";
import { ModelEntryError } from "./routing/catalog-merge.ts";
import { ConfigFileError, parseConfigFile, type ConfigFile } from "./schema/config-file.ts";
import { DB_FILE, openDatabase } from "./store/db.ts";
import { workerLogSink, type WorkerLogSink } from "./store/log-worker-sink.ts";
import { sharedLogSink } from "./store/log-shared-sink.ts";
import { LogWriter, READ_DRAIN_LIMIT_MS } from "./store/log-writer.ts";
import { StorageHealth } from "./store/storage-health.ts";
import { apiKeysRepo } from "./store/repos/api-keys.ts";
import { cacheEntriesRepo } from "./store/repos/cache-entries.ts";
import { feedbackRepo } from "./store/repos/feedback.ts";
import { idempotencyRepo } from "./store/repos/idempotency.ts";
import { ledgerRepo } from "./store/repos/ledger.ts";
import { Billing } from "./billing/billing.ts";
import { projectsRepo } from "./store/repos/projects.ts";
import { providerKeysRepo } from "./store/repos/provider-keys.ts";
import { requestsRepo, type RequestRecord } from "./store/repos/requests.ts";
import { auditLogRepo } from "./store/repos/audit-log.ts";
import { postgresAuditLog } from "./store/postgres/audit-log.ts";
import { dashboardSessionsRepo } from "./store/repos/dashboard-sessions.ts";
import { projectSsoRepo } from "./store/repos/project-sso.ts";
import { AuditLog } from "./audit/audit-log.ts";
import { webhookEventsRepo } from "./store/repos/webhook-events.ts";
import { sqliteWebhookStores } from "./store/repos/webhook-stores.ts";
import { postgresWebhookStores } from "./store/postgres/webhooks-queue.ts";
import { webhookRetentionJob } from "./store/postgres/webhooks-retention.ts";
import { SharedEventSink } from "./monitoring/webhooks/shared-emit.ts";
import { WebhookEmitter } from "./monitoring/webhooks/emitter.ts";
import { Webhooks } from "./monitoring/webhooks/webhooks.ts";
import { StatusPage, statusPageUrl } from "./monitoring/status/status-page.ts";
import { statusSources } from "./monitoring/status/sources.ts";
import { EventSources } from "./monitoring/events/event-sources.ts";
import { sharedBillingEventsJob } from "./monitoring/events/shared-billing-events.ts";
import { SharedSecurityWindows } from "./monitoring/events/security-shared.ts";
import { buildAlertRules, buildSharedAlertRules, monitoringLeaderJobs } from "./monitoring/alerts/build-alerts.ts";
import { rollupHourJobs } from "./store/postgres/rollup-hours.ts";
import { RedisWorkflowReservations } from "./store/redis/workflow-reservations.ts";
import { MODEL_ROLLUP_EVERY_MS, modelRollupJob } from "./store/postgres/model-rollups.ts";
import { stopServices } from "./lib/service.ts";
import { storageServices, type Unwritten } from "./services.ts";
import type { SharedState } from "./store/shared.ts";

/** GW_CONFIG: an optional JSON file (docs/config.md) of catalog overrides (`models`) and `aliases`,
 * checked against docs/config.schema.json; errors (ConfigFileError) name the file and the JSON path. */
export function readConfigFile(path: string | null): ConfigFile {
  if (!path) return {};
  if (!existsSync(path)) throw new ConfigFileError(`GW_CONFIG file not found: ${path}`);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigFileError(`GW_CONFIG ${path}: cannot be read (${(err as { code?: string }).code ?? String(err)})`);
  }
  return parseConfigFile(path, text);
}

/** The catalog with GW_CONFIG's models and aliases applied; `gw config check` and start-up use it. */
export function catalogFromConfig(path: string | null): Catalog {
  const file = readConfigFile(path);
  // A model of a provider gw has no adapter for could never be served.
  file.models?.forEach((m, i) => {
    if (m.provider && !ADAPTER_IDS.includes(m.provider)) {
      throw new ConfigFileError(`GW_CONFIG ${path}: models[${i}].provider: expected one of ${ADAPTER_IDS.join(", ")}, got "${m.provider}"`);
    }
  });
  try {
    return buildCatalog(undefined, file.models ?? [], file.aliases ?? {});
  } catch (err) {
    if (err instanceof ModelEntryError || err instanceof AliasError) throw new ConfigFileError(`GW_CONFIG ${path}: ${err.message}`);
    throw err;
  }
}

export function openRepos(db: Database): Repos {
  return {
    projects: projectsRepo(db), apiKeys: apiKeysRepo(db), requests: requestsRepo(db), providerKeys: providerKeysRepo(db),
    idempotency: idempotencyRepo(db), feedback: feedbackRepo(db), ledger: ledgerRepo(db),
    dashboardSessions: dashboardSessionsRepo(db), projectSso: projectSsoRepo(db), webhookEvents: webhookEventsRepo(db),
  };
}

export function buildDeps(config: Config, options: { logger?: Logger; clock?: Clock; shared?: SharedState } = {}): Deps {
  // Before anything is opened: a bad GW_CONFIG stops start-up with its message alone.
  const catalog = catalogFromConfig(config.configFile);
  const logger = options.logger ?? createLogger(config.logLevel);
  // TTLs, windows, periods and ages read this one clock (tests pass a ManualClock).
  const clock = options.clock ?? systemClock;
  const db = openDatabase(config.dataDir);
  const repos = openRepos(db);
  // Multi-instance: the tenant tables become PostgreSQL's rows before anything reads them.
  options.shared?.mirror.attach(db, repos);
  const cacheRepo = cacheEntriesRepo(db);
  // Multi-instance: the request log is PostgreSQL's and there is no log worker (docs/scale-out.md).
  const logSink = options.shared ? sharedLogSink(options.shared.logs, (writes, lastId) => cacheRepo.write(writes, lastId), {
    rejected: (ids) => logger.error({ rows: ids.length, ids }, "request log rows rejected"),
    strayLedger: (entries) => logger.error({ entries }, "ledger entries not written: in the multi-instance mode charges are PostgreSQL's"),
  }) : workerLogSink(
    join(config.dataDir, DB_FILE),
    (err) => logger.error({ err }, "log worker failed"),
    repos.requests,
    undefined,
    { cache: (writes, lastId) => cacheRepo.write(writes, lastId), ledger: (entries) => repos.ledger.appendMany(entries) },
  );
  // Traces past a project's budget are not stored (docs/observability.md "Trace storage").
  logSink.traceBudget(config.projectTraceBytes);
  repos.requests.setTraceBudget(config.projectTraceBytes);
  const storage = new StorageHealth({
    dataDir: config.dataDir,
    reserveBytes: config.storageReserveBytes,
    onChange: (healthy, reason) =>
      healthy ? logger.info("storage writable again: acknowledging requests") : logger.error({ reason }, "storage cannot record requests: answering 503"),
  });
  const logWriter = new LogWriter(logSink, {
    onError: (err, rows) => logger.error({ err, rows }, "request log write failed; will retry"),
    reporter: storage.reporter("log"),
    onDrop: (dropped) => logger.error({ dropped }, "request log queue over twice its bound: a row was dropped"),
    // Multi-instance: an answer waits for its row's commit, so a killed instance loses no answered row.
    ...(options.shared ? { groupCommit: { ackWithinMs: READ_DRAIN_LIMIT_MS } } : {}),
  });
  const secrets = secretBox(loadSecretKey(config.dataDir, config.secretKey));
  const providers = buildRegistry(config);
  const projectProviders = new ProjectProviders(repos.providerKeys, secrets, providers, transportOf(config), (err, projectId, provider) =>
    logger.error({ err, project_id: projectId, provider }, "a project's provider key cannot be opened (secret.key lost or GW_SECRET_KEY changed?): that project's calls to this provider answer 503 until the key is stored again"), clock);
  const authCache = new AuthCache();
  // A tenant row changed elsewhere drops what was resolved from the mirror (docs/scale-out.md).
  options.shared?.mirror.onChange(() => {
    authCache.clear();
    projectProviders.clear();
  });
  // Keys fail closed (docs/security.md "Keys"): said at start, before the first request finds out.
  const unopenable = projectProviders.checkSealedKeys();
  if (unopenable > 0) logger.error({ keys: unopenable }, "SEALED PROVIDER KEYS CANNOT BE OPENED with this secret key: those projects' requests to those providers fail; gw never falls back to the operator's key");
  if (config.misspelledVariables.length > 0) logger.warn({ variables: config.misspelledVariables }, "environment variables gw does not read, a typo away from ones it does");
  // Said once at start: otherwise the first live request finds out with a 503.
  if (providers.enabled().length === 0) logger.warn("no provider is configured: live keys get 503 until one is (set OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, ... or OLLAMA_BASE_URL; docs/providers.md \"Enabling a provider\"); test keys still work");
  const answers = new SqliteAnswerStore(cacheRepo, {
    memoryBytes: config.cacheMemoryBytes,
    // Written by the log worker's connection, in order with the request log (docs/cache.md "Storage").
    sink: { write: (writes, lastId) => logSink.writeCache(writes, lastId) },
    onError: (err, context) => logger.error({ err }, context),
    clock,
  });
  const embedder = config.semanticEmbedder === "off" ? null
    : config.semanticEmbedder === "provider" ? providerEmbedder(catalog, providers, config.semanticEmbeddingModel)
    : createEmbedder(config.semanticEmbedder);
  const indexLimits = { maxBytes: config.semanticIndexBytes, maxProjectBytes: config.semanticIndexProjectBytes };
  // Multi-instance: each instance's own index, fed through the Redis stream with PostgreSQL's vectors (docs/scale-out.md).
  const semantic = !embedder ? undefined : options.shared
    ? new SharedSemanticCache(embedder, redisSemanticStream(options.shared.redis, options.shared.redisStream), options.shared.fast.answers, logger, clock,
      { ...indexLimits, instanceId: options.shared.instanceId, vectors: postgresSemanticVectors(options.shared.pg) })
    : new EmbeddedSemanticCache(embedder, answers, config.dataDir, logger, clock, indexLimits).open();
  // Exporters listen to every recorded request (record stage); each only queues or counts.
  const otlp = config.otlp ? new OtlpExporter(config.otlp, logger) : undefined;
  const prometheus = config.adminToken ? new PrometheusMetrics({
    models: catalog.models.map((m) => m.id),
    providers: [...ADAPTER_IDS, ...catalog.models.map((m) => m.provider), "cache", "sandbox"],
  }) : undefined;
  // Multi-instance: endpoints, events and their queue are PostgreSQL's; events go in batches (docs/scale-out.md).
  const pgWebhooks = options.shared ? postgresWebhookStores(options.shared.pg, options.shared.instanceId) : null;
  const events = new WebhookEmitter(pgWebhooks ? new SharedEventSink(pgWebhooks.events, (err, what) => logger.error({ err }, what)) : repos.webhookEvents,
    clock, (err, type) => logger.error({ err, type }, "webhook event not stored"));
  const securityWindows = options.shared ? new SharedSecurityWindows(options.shared.redis, (err, what) => logger.error({ err }, what)) : undefined;
  // Billing, admin and security code raise their events through it (docs/webhooks.md "Event types").
  const eventSources = new EventSources(events.emit, clock, {
    ledger: repos.ledger, projects: () => repos.projects.list(), flushLedger: () => billing.writer.flush(),
  }, (err) => logger.error({ err }, "event sources pass failed"), (failures, window) => logger.warn({ failures, window }, "failed authentications with unknown keys"), securityWindows);
  // Multi-instance: the leader raises credits, budget, plan and security-window events from PostgreSQL and Redis, and prunes the webhook tables (docs/scale-out.md).
  options.shared?.leaderJobs.push(sharedBillingEventsJob(() => repos.projects.list(), events.emit), webhookRetentionJob(), ...(securityWindows ? [securityWindows.job(events.emit)] : []));
  // Multi-instance: the leader sends invoice.created from PostgreSQL's ledger (docs/scale-out.md).
  options.shared?.leaderJobs.push(sharedInvoiceEventsJob(postgresInvoiceLedger(options.shared.pg), () => repos.projects.list(), events.emit));
  const billing = new Billing(repos.ledger, (err, context) => logger.error({ err }, context), {
    // Written by the log worker's connection (docs/billing.md "The ledger").
    sink: (entries) => logSink.writeLedger(entries),
    reporter: storage.reporter("ledger"),
    onDrop: (dropped) => logger.error({ dropped }, "ledger queue over twice its bound: an entry was dropped"),
  }, clock, eventSources.billing);
  const requestListeners: Deps["requestListeners"] = [];
  if (otlp) requestListeners.push(otlp.listener);
  if (prometheus) requestListeners.push(prometheus.listener);
  // Token admissions are estimates; the recorded usage corrects them.
  const rateLimits = options.shared ? sharedRateLimiter(config, options.shared, clock, logger) : new RateLimiter({ now: () => clock.now() });
  requestListeners.push(rateLimits.listener);
  const webhooks = new Webhooks(pgWebhooks ?? sqliteWebhookStores(db), { emitter: events, secrets, clock, allowLoopback: config.webhookAllowLoopback, onError: (err, what) => logger.error({ err }, what) });
  const alertInputs = { billing, project: (id: string) => repos.projects.get(id), providers: () => providers.enabled(), emit: events.emit, clock, intervalMs: config.monitorIntervalMs, requestListeners, onError: (err: unknown, context: string) => logger.error({ err }, context) };
  const alerts = options.shared ? buildSharedAlertRules(options.shared, alertInputs) : buildAlertRules(db, alertInputs);
  options.shared?.leaderJobs.push(...monitoringLeaderJobs(alerts, config.monitorIntervalMs));
  options.shared?.leaderJobs.push(...rollupHourJobs((detail) => logger.info({ job: "rollup hours", ...detail }, "leader job done")));
  options.shared?.leaderJobs.push(modelRollupJob(MODEL_ROLLUP_EVERY_MS));
  const statusPage = new StatusPage({ ...statusSources(db, options.shared ?? null), clock, providers: () => providers.enabled(), builtInIncidents: (since) => alerts.builtInIncidents(since), page: { name: "gw", url: statusPageUrl(config.host, config.port, config.publicUrl) } });
  return {
    config,
    shared: options.shared ?? null,
    clock,
    inFlight: createInFlight(),
    testTraceQuota: new MinuteQuota(),
    db,
    repos,
    catalog,
    providers,
    projectProviders,
    health: options.shared ? sharedHealth(options.shared, catalog, clock, logger) : new ProviderHealth({ now: () => clock.now() }),
    // Multi-instance: a conversation's pin is Redis's, so any instance keeps it on its model.
    sessions: options.shared ? new SharedSessionStore(options.shared.fast.sessions, (err, context) => logger.error({ err }, context), () => clock.now()) : new SessionStore(() => clock.now()),
    // Ratings survive a restart: the router's quality sums are rebuilt from the stored ones
    // (multi-instance: from PostgreSQL's, by the "feedback sums" service).
    feedback: options.shared ? new FeedbackQuality() : FeedbackQuality.from(repos.feedback.aggregates()),
    billing,
    workflowBudgets: new WorkflowBudgets((projectId, workflowId) => repos.requests.workflowCost(projectId, workflowId),
      options.shared ? (projectId, workflowId) => options.shared!.logs.workflowCost(projectId, workflowId) : undefined, () => clock.now(),
      options.shared ? { store: new RedisWorkflowReservations(options.shared.redis), ttlMs: config.requestTimeoutMs + 60_000, onError: (err) => logger.error({ err }, "workflow budget reservations unavailable in Redis: each instance reserves alone") } : undefined),
    secrets,
    sandbox: sandboxProvider(),
    logWriter,
    storage,
    logSink,
    logger,
    authCache,
    answers,
    semantic,
    otlp,
    prometheus,
    requestListeners,
    rateLimits,
    // Multi-instance: the audit log is PostgreSQL's (docs/scale-out.md "Dashboard and audit log").
    audit: new AuditLog(options.shared ? postgresAuditLog(options.shared.pg) : auditLogRepo(db), clock, (err) => logger.error({ err }, "audit log write failed")),
    events,
    webhooks,
    alerts,
    statusPage,
    eventSources,
  };
}

/** Multi-instance provider health: circuits opened here are flagged on Redis, others' flags read. */
function sharedHealth(shared: SharedState, catalog: Catalog, clock: Clock, logger: Logger): SharedProviderHealth {
  const keys = [...new Set(catalog.models.flatMap((m) => [m.provider, modelKey(m.provider, m.id)]))];
  const health = new SharedProviderHealth(shared.fast.circuitFlags, { now: () => clock.now(), keys: () => keys, onError: (err, context) => logger.error({ err }, context) });
  void health.start();
  return health;
}

/** Multi-instance rate limits: on Redis, falling back to this instance's share while it fails. */
function sharedRateLimiter(config: Config, shared: SharedState, clock: Clock, logger: Logger): SharedRateLimiter {
  const onError = (err: unknown, context: string) => logger.error({ err }, context);
  const instances = new InstanceCount(shared.redis, shared.instanceId, { now: () => clock.now(), onError });
  void instances.start();
  return new SharedRateLimiter(shared.fast.rateLimits, { now: () => clock.now(), instances, failure: config.redisFailure, onError, onRecovered: () => logger.info("Redis answers again: rate limits are shared again") });
}

/** Storage's part of a clean stop without a server (the server stops it with its other services):
 * the request log drained within `deadlineMs`, the ledger written, the database closed. Returns
 * what could not be written (0 and 0 after a clean stop); it is also logged. */
export async function closeStorage(deps: Deps, deadlineMs = 10_000): Promise<Unwritten> {
  const left: Unwritten = { rows: 0, ledger: 0 };
  await stopServices(storageServices(deps, () => deadlineMs, left), (err, service) => deps.logger.error({ err, service }, "a service did not stop cleanly"));
  return left;
}
