// The JSON the dashboard API answers (docs/dashboard.md "JSON API"); the UI's own copy of the shapes,
// so that the browser bundle imports nothing from the server.

export interface Session {
  object: "dashboard.session";
  role: "operator" | "project";
  project_id: string | null;
  key_id: string | null;
  scopes: string[];
  email: string | null;
  csrf_token: string;
  expires_at: string;
}

export interface ProjectSummary {
  id: string;
  name: string;
  plan: string;
  billing_mode: string;
  balance: number;
  created_at: string;
}

export interface List<T> {
  object: "list";
  data: T[];
  has_more?: boolean;
  next_cursor?: string | null;
}

export interface LogEntry {
  request_id: string;
  trace_id: string;
  created_at: string;
  requested_model: string | null;
  selected_model: string | null;
  provider: string | null;
  task: string | null;
  task_subtype: string | null;
  input_tokens: number;
  output_tokens: number;
  cost: number;
  saved: number;
  cache: string | null;
  status: number;
  error: { code: string; message: string | null } | null;
  error_category: string | null;
  latency_ms: number;
  ttft_ms: number | null;
  fallbacks: number;
  workflow_id: string | null;
  step: string | null;
  tags: string[];
  endpoint: string;
  stream: boolean;
  test: boolean;
}

// PAGES-2: request detail, projects and keys, audit log (docs/api.md "Request detail", "Admin API").
export interface TraceSpan {
  span_id: string;
  parent_span_id: string | null;
  name: string;
  start_ms: number;
  duration_ms: number;
  status: "ok" | "error";
  error_code: string | null;
  attributes?: Record<string, string | number | boolean | null>;
}

export interface TraceCandidate {
  model: string;
  provider?: string;
  rank?: number | null;
  score?: number | null;
  quality?: number | null;
  below_required_quality?: boolean;
  excluded?: string | null;
}

export interface TraceAttempt {
  model: string;
  provider: string;
  status: number | string | null;
  error_code: string | null;
  failure_class?: string | null;
  upstream_status?: number | null;
  duration_ms?: number | null;
  byok?: boolean;
}

export interface TraceCache {
  result?: string | null;
  kind?: string | null;
  similarity?: number | null;
  miss_reason?: string | null;
  semantic?: unknown;
  stored?: unknown;
}

export interface Trace {
  trace_id: string;
  sampled?: false;
  spans?: TraceSpan[];
  candidates?: TraceCandidate[] | null;
  attempts?: TraceAttempt[] | null;
  cache?: TraceCache | null;
  reason?: string | null;
  reasons?: string[] | null;
  selected?: { model: string; provider: string | null } | null;
  timings?: Record<string, number>;
  error?: Record<string, unknown> | null;
  [section: string]: unknown;
}

export interface RequestDetail extends LogEntry {
  object: "request";
  trace: Trace | null;
  versions: Record<string, unknown> | null;
  overhead_ms: number | null;
}

export interface ProjectView {
  object: "project";
  id: string;
  name: string;
  plan: string;
  billing: { mode: string; balance: number; credit_limit: number | null };
  policy: Record<string, unknown>;
  created_at: string;
}

export interface KeySummary {
  id: string;
  name: string | null;
  mode: string;
  scopes: string[];
  created_at: string;
  revoked_at: string | null;
}

export interface ProjectDetail {
  project: ProjectView;
  keys: KeySummary[];
  usage: {
    plan: string;
    requests_this_month: number;
    plan_allowance: number | null;
    budgets: Record<string, unknown> | null;
  };
}

export interface CreatedKey {
  object: "key";
  id: string;
  key: string;
  scopes: string[];
  mode: string;
  created_at: string;
}

export interface AuditEntry {
  object: "audit_entry";
  id: string;
  created_at: string;
  actor: { type: string; id: string | null; email: string | null };
  source_ip: string | null;
  action: string;
  project_id: string | null;
  target: string | null;
  outcome: "success" | "failure";
  status: number | null;
  details: Record<string, unknown>;
}

// Overview, cache, recommendations and monitoring (docs/dashboard.md "JSON API").
/** GET /v1/metrics's object, as the overview embeds it. */
export interface Metrics {
  object: "metrics";
  period: string;
  requests: number;
  availability: number;
  latency: { p50: number | null; p95: number | null; p99: number | null };
  ttft: { p50: number | null; p95: number | null };
  error_rate: number;
  fallback_rate: number;
  errors: Record<string, number>;
  cost: number;
  saved: number;
  cost_per_request: number;
}

export interface OverviewPoint {
  t: number;
  requests: number;
  errors: Record<string, number>;
  cache_exact: number;
  cache_semantic: number;
  cost: number;
  saved: number;
}

export interface ModelSeries {
  model: string;
  requests: number;
  cost: number;
  p95_latency_ms: number | null;
  points: { t: number; cost: number; p95_latency_ms: number | null }[];
}

export interface Overview {
  object: "dashboard.overview";
  period: string;
  metrics: Metrics;
  cache: { hits: number; exact: number; semantic: number; hit_rate: number; exact_rate: number; semantic_rate: number };
  tokens: { input: number; output: number };
  series: { bucket_ms: number; start: string; points: OverviewPoint[] };
  by_model: ModelSeries[];
}

export interface CacheView {
  object: "dashboard.cache";
  enabled: boolean;
  mode: string | null;
  entries: number;
  bytes: number;
  hits: number;
  exact: number;
  semantic: number;
  hit_rate: number;
  saved_usd: number;
  saved_tokens: number;
  series: { bucket_ms: number; points: { t: number; exact: number; semantic: number; requests: number }[] };
  miss_reasons: { reason: string; count: number }[];
}

export interface CacheInvalidation {
  object: "cache.invalidation";
  deleted: number;
}

export interface CheaperModelRecommendation {
  kind: "cheaper_model";
  task: string;
  current_model: string;
  candidate_model: string;
  ratings: number;
  candidate_mean: number;
  candidate_lcb: number;
  current_mean: number;
  current_cost_per_request: number;
  candidate_cost_per_request: number;
  monthly_saving_usd: number;
}

export interface SemanticCacheRecommendation {
  kind: "enable_semantic_cache";
  exact_repeat_share: number;
  requests_30d: number;
  estimated_monthly_saving_usd: number;
}

export type Recommendation = CheaperModelRecommendation | SemanticCacheRecommendation;

export interface RecommendationList {
  object: "list";
  rule: string;
  data: Recommendation[];
}

/** One circuit breaker: a provider's (model null) or one of its models'. */
export interface ProviderHealth {
  provider: string;
  /** "provider/model", or null for the provider's own breaker. */
  model: string | null;
  state: "closed" | "half_open" | "open";
  /** 0..1, an average weighted to recent attempts. */
  error_rate: number;
  latency_ms: number | null;
  opened_at: string | null;
  /** The operator's only (they count every project's traffic). */
  samples?: number;
  consecutive_failures?: number;
}

export interface MonitoringView {
  object: "dashboard.monitoring";
  providers: ProviderHealth[];
}

// Issue 18: webhooks, alert rules, incidents and status posts (docs/dashboard.md "Monitoring API").
export interface WebhookEndpoint {
  id: string;
  url: string;
  events: string[];
  /** Every event type, now and future (the dashboard API adds it). */
  all_events: boolean;
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string;
  /** In the answer to a create or a rotation only. */
  secret?: string;
}

export interface WebhookDelivery {
  id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  created_at: string;
  duration_ms: number | null;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
}

export interface AlertRuleFields {
  name: string;
  metric: string;
  scope: { model?: string; provider?: string; task?: string; tag?: string };
  op: "gt" | "lt";
  threshold: number;
  window: string;
  min_requests: number;
  for: string;
  keep_firing_for: string;
  severity: string;
  enabled: boolean;
}

export interface AlertRuleView extends AlertRuleFields {
  id: string;
  state: string;
}

export interface Incident {
  id: string;
  rule_name: string;
  status: "opened" | "resolved";
  severity: string;
  metric: string;
  threshold: number;
  window: string;
  opened_at: string;
  resolved_at: string | null;
  peak_value: number | null;
  last_value: number | null;
}

export interface StatusPost {
  object: "status_incident" | "status_maintenance";
  id: string;
  name: string;
  status: string;
  impact: string;
  components: string[];
  scheduled_for: string | null;
  scheduled_until: string | null;
  created_at: string;
  resolved_at: string | null;
  updates: { id: string; status: string; body: string; created_at: string }[];
}
