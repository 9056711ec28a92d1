// OTLP/HTTP trace export settings (docs/observability.md "Export"), read from the environment by
// config/env.ts. Export is off unless GW_OTLP_ENDPOINT is set.

export interface OtlpConfig {
  /** Full URL the batches are POSTed to: `{GW_OTLP_ENDPOINT}/v1/traces`. */
  tracesUrl: string;
  /** Extra request headers (`GW_OTLP_HEADERS`, e.g. a collector's API key). */
  headers: Readonly<Record<string, string>>;
  /** Spans per POST (`GW_OTLP_BATCH_SPANS`, default 512). */
  batchSpans: number;
  /** Longest a span waits before its batch is sent (`GW_OTLP_INTERVAL_MS`, default 1000). */
  intervalMs: number;
  /** Spans held while the collector is slow or down; the oldest go first (`GW_OTLP_QUEUE_SPANS`, default 8192). */
  queueSpans: number;
  /** One POST's time limit (`GW_OTLP_TIMEOUT_MS`, default 5000). */
  timeoutMs: number;
}

function positiveInt(name: string, text: string | undefined, fallback: number): number {
  if (!text) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`Invalid ${name} "${text}": expected a positive integer.`);
  return n;
}

/** The endpoint is the collector's base address, as OTEL_EXPORTER_OTLP_ENDPOINT is; a URL that
 * already ends in /v1/traces is taken as the traces URL itself. */
function tracesUrlOf(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new Error(`Invalid GW_OTLP_ENDPOINT "${endpoint}": expected an http(s) URL such as http://127.0.0.1:4318.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`GW_OTLP_ENDPOINT must be http or https (got "${endpoint}").`);
  const base = url.href.replace(/\/+$/, "");
  return base.endsWith("/v1/traces") ? base : `${base}/v1/traces`;
}

const headerIndex = (text: string, pair: string): string => `#${text.split(",").indexOf(pair) + 1}`;

/** "k=v,k2=v2", values percent-decoded as in OTEL_EXPORTER_OTLP_HEADERS. */
export function parseOtlpHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? "").split(",")) {
    if (!pair.trim()) continue;
    const eq = pair.indexOf("=");
    // Header values are credentials: the entry is not repeated.
    if (eq <= 0) throw new Error(`Invalid GW_OTLP_HEADERS entry ${headerIndex(text ?? "", pair)}: expected key=value,key2=value2.`);
    const value = pair.slice(eq + 1).trim();
    try {
      headers[pair.slice(0, eq).trim().toLowerCase()] = decodeURIComponent(value);
    } catch {
      throw new Error(`Invalid GW_OTLP_HEADERS value for "${pair.slice(0, eq).trim()}": bad percent-encoding.`);
    }
  }
  return headers;
}

export function parseOtlpConfig(env: Record<string, string | undefined>): OtlpConfig | null {
  const endpoint = env.GW_OTLP_ENDPOINT?.trim();
  if (!endpoint) return null;
  return Object.freeze({
    tracesUrl: tracesUrlOf(endpoint),
    headers: Object.freeze(parseOtlpHeaders(env.GW_OTLP_HEADERS)),
    batchSpans: positiveInt("GW_OTLP_BATCH_SPANS", env.GW_OTLP_BATCH_SPANS, 512),
    intervalMs: positiveInt("GW_OTLP_INTERVAL_MS", env.GW_OTLP_INTERVAL_MS, 1000),
    queueSpans: positiveInt("GW_OTLP_QUEUE_SPANS", env.GW_OTLP_QUEUE_SPANS, 8192),
    timeoutMs: positiveInt("GW_OTLP_TIMEOUT_MS", env.GW_OTLP_TIMEOUT_MS, 5000),
  });
}
