// What the pipeline and the HTTP layer are handed: every long-lived service, built once by
// src/deps.ts (buildDeps) and injected.
import type { Database } from "bun:sqlite";
import type { AuthCache } from "../auth/auth-cache.ts";
import type { AnswerStore } from "../cache/answer-store-types.ts";
import type { Config } from "../config/env.ts";
import type { Logger } from "../observability/logger.ts";
import type { OtlpExporter } from "../observability/otlp/exporter.ts";
import type { PrometheusMetrics } from "../observability/prometheus-metrics.ts";
import type { SecretBox } from "../lib/secret-box.ts";
import type { Clock } from "../lib/clock.ts";
import type { InFlight } from "./in-flight.ts";
import type { MinuteQuota } from "../lib/minute-quota.ts";
import type { ProjectProviders } from "../providers/project-providers.ts";
import type { ProviderRegistry } from "../providers/registry.ts";
import type { Provider } from "../providers/types.ts";
import type { Catalog } from "../routing/catalog.ts";
import type { FeedbackQuality } from "../routing/feedback-quality.ts";
import type { ProviderHealth } from "../routing/health.ts";
import type { SessionStore } from "../routing/sessions.ts";
import type { WorkflowBudgets } from "../routing/workflow-budgets.ts";
import type { RateLimiter } from "../billing/rate-limit.ts";
import type { Billing } from "../billing/billing.ts";
import type { SemanticCache } from "../cache/semantic-types.ts";
import type { IndexStats } from "../cache/vector-index.ts";
import type { WorkerLogSink } from "../store/log-worker-sink.ts";
import type { LogWriter } from "../store/log-writer.ts";
import type { StorageHealth } from "../store/storage-health.ts";
import type { apiKeysRepo } from "../store/repos/api-keys.ts";
import type { cacheEntriesRepo } from "../store/repos/cache-entries.ts";
import type { feedbackRepo } from "../store/repos/feedback.ts";
import type { idempotencyRepo } from "../store/repos/idempotency.ts";
import type { ledgerRepo } from "../store/repos/ledger.ts";
import type { projectsRepo } from "../store/repos/projects.ts";
import type { providerKeysRepo } from "../store/repos/provider-keys.ts";
import type { requestsRepo, RequestRecord } from "../store/repos/requests.ts";
import type { dashboardSessionsRepo } from "../store/repos/dashboard-sessions.ts";
import type { projectSsoRepo } from "../store/repos/project-sso.ts";
import type { AuditLog } from "../audit/audit-log.ts";
import type { webhookEventsRepo } from "../store/repos/webhook-events.ts";
import type { WebhookEmitter } from "../monitoring/webhooks/emitter.ts";
import type { Webhooks } from "../monitoring/webhooks/webhooks.ts";
import type { EventSources } from "../monitoring/events/event-sources.ts";
import type { AlertRules } from "../monitoring/alerts/alert-rules.ts";
import type { StatusPage } from "../monitoring/status/status-page.ts";
import type { SharedState } from "../store/shared.ts";

export interface Repos {
  projects: ReturnType<typeof projectsRepo>;
  apiKeys: ReturnType<typeof apiKeysRepo>;
  requests: ReturnType<typeof requestsRepo>;
  providerKeys: ReturnType<typeof providerKeysRepo>;
  idempotency: ReturnType<typeof idempotencyRepo>;
  feedback: ReturnType<typeof feedbackRepo>;
  ledger: ReturnType<typeof ledgerRepo>;
  dashboardSessions: ReturnType<typeof dashboardSessionsRepo>;
  projectSso: ReturnType<typeof projectSsoRepo>;
  webhookEvents: ReturnType<typeof webhookEventsRepo>;
}

export interface Deps {
  config: Config;
  /** The multi-instance mode's PostgreSQL and Redis stores (docs/scale-out.md); null in
   * single-node mode, where every path stays synchronous on SQLite and in-process state. */
  shared: SharedState | null;
  /** The pipeline requests under way: what shutdown waits for and aborts (docs/availability.md). */
  inFlight: InFlight;
  /** Detailed test-key traces kept per project this minute (GW_TEST_TRACES_PER_MIN). */
  testTraceQuota: MinuteQuota;
  /** The one clock (lib/clock.ts): TTLs, windows and periods read it, so tests can move time. */
  clock: Clock;
  db: Database;
  repos: Repos;
  catalog: Catalog;
  providers: ProviderRegistry;
  /** Spent and reserved cost per agent workflow (gw.workflow_budget). */
  workflowBudgets: WorkflowBudgets;
  /** Project accounts (credit, holds, budgets, plan allowance) over the append-only ledger. */
  billing: Billing;
  /** Per (model, task) quality blended from ratings (feedback endpoint). */
  feedback: FeedbackQuality;
  /** Sticky sessions: the model each conversation last used. */
  sessions: SessionStore;
  /** Passive provider health: circuit breakers and latency, fed by every attempt. */
  health: ProviderHealth;
  /** Whose key serves a project's call: its own (BYOK) or the operator's. */
  projectProviders: ProjectProviders;
  /** Seals secrets at rest (projects' provider keys). */
  secrets: SecretBox;
  sandbox: Provider;
  logWriter: LogWriter;
  /** Whether the log and the ledger can be written; when not, requests answer 503 (fail closed;
   * docs/availability.md "Storage"). `healthy` and `reason` are for readiness. */
  storage: StorageHealth;
  /** The thread that writes the request log; closed after the last drain on shutdown. */
  logSink: WorkerLogSink;
  logger: Logger;
  /** Resolved keys; cleared by every admin write so projects and keys change at once. */
  authCache: AuthCache;
  /** Called with every recorded request (log row with its trace), after it is queued for the log. */
  requestListeners: Array<(row: RequestRecord) => void>;
  /** OTLP trace export (GW_OTLP_ENDPOINT); flushed, within a bound, on shutdown. */
  otlp?: OtlpExporter;
  /** Prometheus series (GET /v1/admin/metrics/prometheus); only with GW_ADMIN_TOKEN. */
  prometheus?: PrometheusMetrics;
  /** The response cache's stored answers (exact store; semantic hits resolve through it). */
  answers: AnswerStore;
  /** The semantic cache's index and embedder; absent when GW_SEMANTIC_EMBEDDER is off. */
  semantic?: SemanticCache & { start(): void; close(): Promise<void>; settled(): Promise<void>; stats(): IndexStats };
  /** Requests and tokens per minute per project and key (billing/rate-limit.ts); settled by its listener. */
  rateLimits: RateLimiter;
  /** Append-only record of admin actions and dashboard sign-ins (docs/dashboard.md "Audit log"). */
  audit: AuditLog;
  /** Raises webhook events once per natural key and queues them durably (docs/webhooks.md). */
  events: WebhookEmitter;
  /** Webhook endpoints and the delivery of queued events (docs/webhooks.md "Endpoints"). */
  webhooks: Webhooks;
  /** Credits, budget, plan, invoice and security events: counted on the request path, sent on a crossing or when a window ends. */
  eventSources: EventSources;
  /** Alert rules, their evaluation and incidents (docs/monitoring.md "Alert rules"). */
  alerts: AlertRules;
  /** The public status page and the operator's status posts (docs/monitoring.md "Status page"). */
  statusPage: StatusPage;
}
