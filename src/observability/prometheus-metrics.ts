// gw's Prometheus series (docs/observability.md "Export"): counters and histograms fed by a
// request listener, plus gauges read at scrape time. Label values are bounded: models and
// providers are those gw knows (catalog, adapters) plus a few others, then `other`.
import { COMPONENT_VERSIONS } from "../config/versions.ts";
import type { CircuitState, HealthSnapshot } from "../routing/health.ts";
import type { RequestRecord } from "../store/repos/requests.ts";
import type { OtlpStats } from "./otlp/exporter.ts";
import { CounterFamily, HistogramFamily, labelText, TextWriter } from "./prometheus-text.ts";

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const TTFT_BUCKETS = [0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30];
const STATES: readonly CircuitState[] = ["closed", "half_open", "open"];

/** A label's allowed values: the known ones, then the first `spare` unknown ones, then `other`. */
class LabelBound {
  private readonly allowed: Set<string>;
  private spare: number;

  constructor(known: Iterable<string>, spare: number) {
    this.allowed = new Set(known);
    this.spare = spare;
  }

  of(value: string | null): string {
    if (value === null || value === "") return "none";
    if (this.allowed.has(value)) return value;
    if (this.spare <= 0) return "other";
    this.spare--;
    this.allowed.add(value);
    return value;
  }
}

export interface LabelSources {
  models: Iterable<string>;
  providers: Iterable<string>;
}

/** What a scrape reads besides the counters: all cheap, in-memory. */
export interface ScrapeSources {
  health: HealthSnapshot[];
  enabledProviders: string[];
  logQueueRows: number;
  otlp: OtlpStats | null;
}

export class PrometheusMetrics {
  /** When the process started (not this object), for process_start_time_seconds and uptime. */
  private readonly startedAt = performance.timeOrigin;
  private readonly models: LabelBound;
  private readonly providers: LabelBound;
  // Endpoints, statuses, categories and cache results come from gw's own code, so few exist.
  private readonly small = () => new LabelBound([], 64);
  private readonly endpoints = this.small();
  private readonly statuses = this.small();
  private readonly categories = this.small();
  private readonly cacheResults = this.small();

  private readonly requests = new CounterFamily("gw_requests_total", "Requests recorded, by endpoint, HTTP status, provider, answering model and cache kind.", ["endpoint", "status", "provider", "model", "cache"]);
  private readonly errors = new CounterFamily("gw_request_errors_total", "Failed requests by error category (see docs/api.md, Errors).", ["category"]);
  private readonly duration = new HistogramFamily("gw_request_duration_seconds", "Request latency as logged (latency_ms: until the answer, or the stream, is complete).", ["endpoint"], DURATION_BUCKETS);
  private readonly ttft = new HistogramFamily("gw_ttft_seconds", "Time to first token of streamed answers.", [], TTFT_BUCKETS);
  private readonly tokens = new CounterFamily("gw_tokens_total", "Tokens by direction (input, output) and answering model.", ["direction", "model"]);
  private readonly cost = new CounterFamily("gw_cost_usd_total", "Model cost in USD before markup, by answering model.", ["model"]);
  private readonly saved = new CounterFamily("gw_saved_usd_total", "USD saved against the baseline (routing and cache).");
  private readonly cacheHits = new CounterFamily("gw_cache_hits_total", "Response cache hits by kind.", ["kind"]);
  private readonly cacheLookups = new CounterFamily("gw_cache_lookups_total", "Response cache decisions by result (hit, miss, skip, refresh, error).", ["result"]);
  private readonly families = [this.requests, this.errors, this.duration, this.ttft, this.tokens, this.cost, this.saved, this.cacheHits, this.cacheLookups];

  constructor(labels: LabelSources) {
    this.models = new LabelBound(labels.models, 50);
    this.providers = new LabelBound(labels.providers, 20);
  }

  /** deps.requestListeners entry: a few Map updates, never throws. */
  readonly listener = (r: RequestRecord): void => {
    try {
      const endpoint = this.endpoints.of(r.endpoint);
      const model = this.models.of(r.selectedModel);
      this.requests.inc([endpoint, this.statuses.of(String(r.status)), this.providers.of(r.provider), model, r.cache ?? "none"]);
      if (r.errorCategory) this.errors.inc([this.categories.of(r.errorCategory)]);
      this.duration.observe([endpoint], r.latencyMs / 1000);
      if (r.ttftMs !== null) this.ttft.observe([], r.ttftMs / 1000);
      if (r.inputTokens > 0) this.tokens.inc(["input", model], r.inputTokens);
      if (r.outputTokens > 0) this.tokens.inc(["output", model], r.outputTokens);
      if (r.cost > 0) this.cost.inc([model], r.cost);
      if (r.saved > 0) this.saved.inc([], r.saved);
      if (r.cache === "exact" || r.cache === "semantic") this.cacheHits.inc([r.cache]);
      const result = (r.trace?.cache as { result?: unknown } | undefined)?.result;
      // Without a kept trace only a hit is known (from the row); misses are then not counted.
      if (typeof result === "string") this.cacheLookups.inc([this.cacheResults.of(result)]);
      else if (r.cache) this.cacheLookups.inc(["hit"]);
    } catch {
      // Metrics are best effort; the request has already been answered and logged.
    }
  };

  render(src: ScrapeSources): string {
    const w = new TextWriter();
    w.family("gw_up", "gauge", "1 while gw serves requests.").sample("gw_up", "", 1);
    w.family("gw_build_info", "gauge", "gw's version.").sample("gw_build_info", labelText(["version"], [COMPONENT_VERSIONS.gateway]), 1);
    for (const f of this.families) f.write(w);
    this.writeHealth(w, src);
    w.family("gw_request_log_queue_rows", "gauge", "Request-log rows waiting to be written.").sample("gw_request_log_queue_rows", "", src.logQueueRows);
    if (src.otlp) this.writeOtlp(w, src.otlp);
    const dropped = this.families.reduce((n, f) => n + f.dropped, 0);
    w.family("gw_metrics_series_dropped_total", "counter", "Events not counted because their series would pass a family's series cap.").sample("gw_metrics_series_dropped_total", "", dropped);
    this.writeProcess(w);
    return w.toString();
  }

  /** A state set: one series per provider and state, 1 for the current state. */
  private writeHealth(w: TextWriter, src: ScrapeSources): void {
    const states = new Map<string, CircuitState>(src.enabledProviders.map((p) => [p, "closed"]));
    for (const h of src.health) if (!h.key.includes("/")) states.set(h.key, h.state);
    w.family("gw_provider_health", "gauge", "Provider circuit state (passive health): 1 for the current state.");
    for (const [provider, current] of states) {
      const p = this.providers.of(provider);
      for (const s of STATES) w.sample("gw_provider_health", labelText(["provider", "state"], [p, s]), s === current ? 1 : 0);
    }
  }

  private writeOtlp(w: TextWriter, s: OtlpStats): void {
    w.family("gw_otlp_spans_total", "counter", "Spans handed to the OTLP exporter, by outcome (exported, dropped from a full queue, failed to send).");
    for (const [result, n] of [["exported", s.exportedSpans], ["dropped", s.droppedSpans], ["failed", s.failedSpans]] as const) {
      w.sample("gw_otlp_spans_total", labelText(["result"], [result]), n);
    }
    w.family("gw_otlp_queue_spans", "gauge", "Spans waiting for the OTLP exporter.").sample("gw_otlp_queue_spans", "", s.queuedSpans);
  }

  private writeProcess(w: TextWriter): void {
    const mem = process.memoryUsage();
    const cpu = process.cpuUsage();
    w.family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.").sample("process_resident_memory_bytes", "", mem.rss);
    w.family("process_heap_used_bytes", "gauge", "JavaScript heap in use, in bytes.").sample("process_heap_used_bytes", "", mem.heapUsed);
    w.family("process_cpu_seconds_total", "counter", "User and system CPU time spent, in seconds.").sample("process_cpu_seconds_total", "", (cpu.user + cpu.system) / 1e6);
    w.family("process_start_time_seconds", "gauge", "Start time of the process since the Unix epoch, in seconds.").sample("process_start_time_seconds", "", Math.floor(this.startedAt / 1000));
    w.family("gw_uptime_seconds", "gauge", "Seconds since gw started.").sample("gw_uptime_seconds", "", (Date.now() - this.startedAt) / 1000);
  }
}
