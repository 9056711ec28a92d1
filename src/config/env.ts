// Validated configuration from flags and environment (docs/running.md "Configuration"), frozen once at start.
import { resolve } from "node:path";
import { parseOtlpConfig, type OtlpConfig } from "./otlp.ts";
import { misspelledVariables, parseBaseUrl, parseHost, parseLogLevel, parseSwitch } from "./env-values.ts";
import { parseCidr, type Cidr } from "../lib/ip.ts";
import { checkStateMode, parseDatabaseUrl, parseRedisFailure, parseRedisUrl, type StateMode } from "./scale-out.ts";

export interface ProviderEnv {
  apiKey: string | null;
  baseUrl: string | null;
  /** Azure OpenAI only: the `api-version` query parameter. */
  apiVersion?: string;
}

/** Azure OpenAI's data-plane API version used when AZURE_OPENAI_API_VERSION is unset (GA). */
export const AZURE_DEFAULT_API_VERSION = "2024-10-21";

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  adminToken: string | null;
  configFile: string | null;
  logLevel: string;
  /** Time allowed for an upstream's response headers (`GW_UPSTREAM_TIMEOUT_MS`, default 120 s). */
  upstreamTimeoutMs: number;
  /** The whole request's deadline for reaching an answer, fallbacks included
   * (`GW_REQUEST_TIMEOUT_MS`, default 300 s): no attempt starts or waits beyond it. */
  requestTimeoutMs: number;
  /** Longest upstream silence inside a stream (`GW_STREAM_IDLE_TIMEOUT_MS`, default 300 s:
   * reasoning models think for minutes before their first token); docs/availability.md. */
  streamIdleTimeoutMs: number;
  /** Silence after which gw writes an SSE comment to the client (`GW_SSE_KEEPALIVE_MS`, 15 s). */
  sseKeepAliveMs: number;
  /** Largest non-streamed upstream body (`GW_UPSTREAM_MAX_BODY_MB`, default 16). */
  upstreamMaxBodyBytes: number;
  /** GW_SECRET_KEY: seals projects' provider keys at rest; unset: a key file in the data dir. */
  secretKey: string | null;
  /** Both GW_DATABASE_URL and GW_REDIS_URL set: multi-instance (docs/scale-out.md "Modes"). */
  stateMode: StateMode;
  databaseUrl: string | null;
  redisUrl: string | null;
  /** GW_REDIS_FAILURE: rate limits while Redis fails, `open` (this instance's share) or `closed` (429). */
  redisFailure: "open" | "closed";
  /** How long an Idempotency-Key and its stored result live (`GW_IDEMPOTENCY_TTL_HOURS`, default 24). */
  idempotencyTtlMs: number;
  /** Bytes of whole cached answers kept in memory (`GW_CACHE_MEMORY_MB`, default 64). */
  cacheMemoryBytes: number;
  /** Request-log rows and traces older than this are deleted (`GW_LOG_RETENTION_DAYS`, default
   * 30; 0 keeps them). Metrics rollups are kept apart (docs/observability.md). */
  logRetentionDays: number;
  /** The semantic cache's embedder (`GW_SEMANTIC_EMBEDDER`): `use` (the sentence model in the
   * binary, default), `ngram` (model-free), `provider` (an embedding model through a provider,
   * `GW_SEMANTIC_EMBEDDING_MODEL`) or `off`. Loaded on first use. */
  semanticEmbedder: "use" | "ngram" | "provider" | "off";
  semanticEmbeddingModel: string | null;
  /** Estimated bytes the semantic index may hold in total (`GW_SEMANTIC_INDEX_MB`, default 128)
   * and per project (`GW_SEMANTIC_INDEX_PROJECT_MB`, default 64); past them the least recently
   * used partitions are dropped (docs/semantic-cache.md "Memory"). */
  semanticIndexBytes: number;
  semanticIndexProjectBytes: number;
  /** OpenTelemetry trace export over OTLP/HTTP (`GW_OTLP_ENDPOINT`, `GW_OTLP_HEADERS`, ...); null: off. */
  otlp: OtlpConfig | null;
  /** On SIGTERM/SIGINT, how long in-flight requests may run before they are aborted
   * (`GW_SHUTDOWN_TIMEOUT_S`, default 30; docs/availability.md "Shutdown"). */
  shutdownTimeoutMs: number;
  /** Size of the disk reserve gw deletes when the disk fills, so queued log rows and charges
   * still fit (`GW_STORAGE_RESERVE_MB`, default 64; 0: none; docs/availability.md "Storage"). */
  storageReserveBytes: number;
  /** Trace bytes a project may store; over it new traces are not stored, rows still are
   * (`GW_PROJECT_LOG_MB`, default 1024; 0: no budget; docs/observability.md). */
  projectTraceBytes: number;
  /** Detailed traces kept per project per minute for test keys; errors always
   * (`GW_TEST_TRACES_PER_MIN`, default 60; docs/observability.md). */
  testTracesPerMinute: number;
  /** Proxies whose X-Forwarded-For is believed (`GW_TRUSTED_PROXIES`, CIDRs, comma-separated). */
  trustedProxies: Cidr[];
  /** Where users reach this gw (`GW_PUBLIC_URL`, e.g. https://gw.example.com), for links gw gives
   * out such as the status JSON's `page.url`; null: the listening address. */
  publicUrl: string | null;
  /** How often alert rules are evaluated (`GW_MONITOR_INTERVAL_S`, default 30; docs/monitoring.md). */
  monitorIntervalMs: number;
  /** `GW_WEBHOOK_ALLOW_LOOPBACK=1`: webhook endpoints may be http on loopback (tests, local receivers;
   * docs/webhooks.md). Off by default: https only, never private or loopback addresses. */
  webhookAllowLoopback: boolean;
  /** Provider id (lower case) -> key and base URL as read from the environment. */
  providers: Readonly<Record<string, ProviderEnv>>;
  /** Browser origins allowed to call the API (`GW_CORS_ORIGINS`, comma-separated, or `*`); null: CORS off (docs/api.md "CORS"). */
  corsOrigins: readonly string[] | "*" | null;
  /** Set names gw does not read that are a typo away from one it does (`GW_LOG_LEVL (did you mean
   * GW_LOG_LEVEL?)`); start-up warns (docs/config.md "Environment variables"). */
  misspelledVariables: readonly string[];
}

/** Providers enabled by `<NAME>_API_KEY`; local servers are enabled by `<NAME>_BASE_URL` alone. */
export const KEYED_PROVIDERS = [
  "openai", "anthropic", "gemini", "mistral", "groq", "deepseek", "xai", "together", "openrouter",
] as const;
export const LOCAL_PROVIDERS = ["ollama", "vllm"] as const;

export type Flags = Record<string, string | boolean>;

function flagString(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  return typeof value === "string" ? value : undefined;
}

function parseTimeoutMs(name: string, text: string): number {
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms <= 0) {
    throw new Error(`Invalid ${name} "${text}": expected a positive integer (milliseconds).`);
  }
  return ms;
}

function parseHours(name: string, text: string): number {
  const hours = Number(text);
  // Fractions are allowed (0.5 = 30 minutes); zero would make every key expire at once.
  if (!Number.isFinite(hours) || hours <= 0) {
    throw new Error(`Invalid ${name} "${text}": expected a positive number of hours.`);
  }
  return Math.round(hours * 3_600_000);
}

function parseMegabytes(name: string, text: string): number {
  const mb = Number(text);
  // Zero is allowed: no answer kept whole in memory, every hit read from SQLite.
  if (!Number.isFinite(mb) || mb < 0) throw new Error(`Invalid ${name} "${text}": expected a number of megabytes (0 or more).`);
  return Math.round(mb * 1024 * 1024);
}

function parseCount(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new Error(`Invalid ${name} "${text}": expected a whole number (0 or more).`);
  return n;
}

function parseDays(name: string, text: string): number {
  const days = Number(text);
  // Whole days: retention is coarse by nature, and 0 (keep everything) must be a deliberate choice.
  if (!Number.isInteger(days) || days < 0) throw new Error(`Invalid ${name} "${text}": expected a whole number of days (0 keeps everything).`);
  return days;
}

function parsePublicUrl(text: string | undefined): string | null {
  if (!text) return null;
  const url = URL.canParse(text) ? new URL(text) : null;
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.search || url.hash) {
    throw new Error(`Invalid GW_PUBLIC_URL "${text}": expected an http(s) URL such as https://gw.example.com`);
  }
  return url.href.replace(/\/+$/, "");
}

function parseSeconds(name: string, text: string): number {
  const seconds = Number(text);
  // Zero is allowed: abort in-flight requests at once.
  if (!Number.isFinite(seconds) || seconds < 0) throw new Error(`Invalid ${name} "${text}": expected a number of seconds (0 or more).`);
  return Math.round(seconds * 1000);
}

function parsePort(name: string, text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`Invalid ${name} "${text}": expected an integer from 0 to 65535 (0: any free port).`);
  }
  return port;
}

export function loadConfig(flags: Flags = {}, given: Record<string, string | undefined> = process.env): Config {
  // Every name read is noted, so a set name never read that is close to one is reported as a typo.
  const read = new Set<string>();
  const env = new Proxy(given, { get: (target, name) => (typeof name === "string" && read.add(name), Reflect.get(target, name)) });
  const providers: Record<string, ProviderEnv> = {};
  for (const name of [...KEYED_PROVIDERS, ...LOCAL_PROVIDERS]) {
    const upper = name.toUpperCase();
    providers[name] = { apiKey: env[`${upper}_API_KEY`] || null, baseUrl: parseBaseUrl(`${upper}_BASE_URL`, env[`${upper}_BASE_URL`]) };
  }
  // Azure OpenAI needs its resource endpoint as well as a key: both enable it (docs/providers.md).
  providers["azure-openai"] = {
    apiKey: env.AZURE_OPENAI_API_KEY || null,
    baseUrl: parseBaseUrl("AZURE_OPENAI_BASE_URL", env.AZURE_OPENAI_BASE_URL),
    apiVersion: env.AZURE_OPENAI_API_VERSION || AZURE_DEFAULT_API_VERSION,
  };
  // A flag wins over its variable; an error names whichever was used.
  const fromFlag = (flag: string, variable: string, fallback: string): [string, string] => {
    const value = flagString(flags, flag);
    return value !== undefined ? [`--${flag}`, value] : [variable, env[variable] || fallback];
  };
  // One of the two alone refuses to start (docs/scale-out.md "Modes").
  const databaseUrl = parseDatabaseUrl(env.GW_DATABASE_URL);
  const redisUrl = parseRedisUrl(env.GW_REDIS_URL);
  const stateMode = checkStateMode(databaseUrl, redisUrl, env.GW_SECRET_KEY || null);
  return Object.freeze({
    port: parsePort(...fromFlag("port", "PORT", "8080")),
    host: parseHost(...fromFlag("host", "HOST", "127.0.0.1")),
    dataDir: resolve(flagString(flags, "data") ?? (env.GW_DATA_DIR || "./data")),
    adminToken: parseAdminToken(env.GW_ADMIN_TOKEN),
    secretKey: env.GW_SECRET_KEY || null,
    stateMode, databaseUrl, redisUrl, redisFailure: parseRedisFailure(env.GW_REDIS_FAILURE),
    configFile: flagString(flags, "config") ?? env.GW_CONFIG ?? null,
    logLevel: parseLogLevel("GW_LOG_LEVEL", env.GW_LOG_LEVEL || "info"),
    upstreamTimeoutMs: parseTimeoutMs("GW_UPSTREAM_TIMEOUT_MS", env.GW_UPSTREAM_TIMEOUT_MS || "120000"),
    requestTimeoutMs: parseTimeoutMs("GW_REQUEST_TIMEOUT_MS", env.GW_REQUEST_TIMEOUT_MS || "300000"),
    streamIdleTimeoutMs: parseTimeoutMs("GW_STREAM_IDLE_TIMEOUT_MS", env.GW_STREAM_IDLE_TIMEOUT_MS || "300000"),
    sseKeepAliveMs: parseTimeoutMs("GW_SSE_KEEPALIVE_MS", env.GW_SSE_KEEPALIVE_MS || "15000"),
    upstreamMaxBodyBytes: Math.max(1, parseMegabytes("GW_UPSTREAM_MAX_BODY_MB", env.GW_UPSTREAM_MAX_BODY_MB || "16")),
    idempotencyTtlMs: parseHours("GW_IDEMPOTENCY_TTL_HOURS", env.GW_IDEMPOTENCY_TTL_HOURS || "24"),
    cacheMemoryBytes: parseMegabytes("GW_CACHE_MEMORY_MB", env.GW_CACHE_MEMORY_MB || "64"),
    logRetentionDays: parseDays("GW_LOG_RETENTION_DAYS", env.GW_LOG_RETENTION_DAYS || "30"),
    semanticEmbedder: parseEmbedder(env.GW_SEMANTIC_EMBEDDER || "use"),
    semanticEmbeddingModel: env.GW_SEMANTIC_EMBEDDING_MODEL || null,
    semanticIndexBytes: parseMegabytes("GW_SEMANTIC_INDEX_MB", env.GW_SEMANTIC_INDEX_MB || "128"),
    semanticIndexProjectBytes: parseMegabytes("GW_SEMANTIC_INDEX_PROJECT_MB", env.GW_SEMANTIC_INDEX_PROJECT_MB || "64"),
    otlp: parseOtlpConfig(env),
    trustedProxies: parseProxies(env.GW_TRUSTED_PROXIES ?? ""),
    storageReserveBytes: parseMegabytes("GW_STORAGE_RESERVE_MB", env.GW_STORAGE_RESERVE_MB || "64"),
    projectTraceBytes: parseMegabytes("GW_PROJECT_LOG_MB", env.GW_PROJECT_LOG_MB || "1024"),
    testTracesPerMinute: parseCount("GW_TEST_TRACES_PER_MIN", env.GW_TEST_TRACES_PER_MIN || "60"),
    shutdownTimeoutMs: parseSeconds("GW_SHUTDOWN_TIMEOUT_S", env.GW_SHUTDOWN_TIMEOUT_S || "30"),
    publicUrl: parsePublicUrl(env.GW_PUBLIC_URL),
    monitorIntervalMs: Math.max(1000, parseSeconds("GW_MONITOR_INTERVAL_S", env.GW_MONITOR_INTERVAL_S || "30")),
    webhookAllowLoopback: parseSwitch("GW_WEBHOOK_ALLOW_LOOPBACK", env.GW_WEBHOOK_ALLOW_LOOPBACK),
    providers: Object.freeze(providers),
    corsOrigins: parseCorsOrigins(env.GW_CORS_ORIGINS),
    // Keep last: it needs every name the fields above read.
    misspelledVariables: Object.freeze(misspelledVariables(Object.keys(given), read)),
  });
}

/** `*`, or origins exactly as browsers send them: scheme, host and port, no path or slash. */
function parseCorsOrigins(text: string | undefined): Config["corsOrigins"] {
  if (!text?.trim()) return null;
  if (text.trim() === "*") return "*";
  const origins = text.split(",").map((s) => s.trim()).filter(Boolean);
  return origins.length === 0 ? null : Object.freeze(origins.map((origin) => {
    const url = URL.canParse(origin) ? new URL(origin) : null;
    if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.origin !== origin) {
      throw new Error(`Invalid GW_CORS_ORIGINS entry "${origin}": expected * or origins such as https://app.example.com,http://localhost:5173 (scheme, host and port only).`);
    }
    return origin;
  }));
}

/** The admin token guards every project's keys and money (docs/security.md "Admin"): a short or
 * repetitive one is refused at start-up rather than accepted and guessed. */
export const ADMIN_TOKEN_MIN_LENGTH = 32;
function parseAdminToken(text: string | undefined): string | null {
  if (!text) return null;
  const weak = text.length < ADMIN_TOKEN_MIN_LENGTH ? `is ${text.length} characters; it needs at least ${ADMIN_TOKEN_MIN_LENGTH}`
    : new Set(text).size < 8 ? "repeats too few distinct characters" : null;
  if (weak) throw new Error(`GW_ADMIN_TOKEN ${weak}. Make a strong one with: openssl rand -hex 32`);
  return text;
}

function parseProxies(value: string): Cidr[] {
  return value.split(",").map((s) => s.trim()).filter(Boolean).map((text) => {
    const cidr = parseCidr(text);
    if (!cidr) throw new Error(`Invalid GW_TRUSTED_PROXIES entry "${text}": expected IP addresses or CIDR ranges such as 10.0.0.0/8,::1, comma-separated.`);
    return cidr;
  });
}

function parseEmbedder(value: string): Config["semanticEmbedder"] {
  if (value === "use" || value === "ngram" || value === "provider" || value === "off") return value;
  throw new Error(`Invalid GW_SEMANTIC_EMBEDDER "${value}": expected use, ngram, provider or off.`);
}

/** What a command accepts (src/cli/commands.ts): each flag takes a value or stands alone. */
export type FlagSpec = Readonly<Record<string, "string" | "boolean">>;

/** The command line is wrong (an unknown flag, a missing value): the CLI exits 2 with its usage. */
export class UsageError extends Error {}

/** `--name value`, `--name=value` and bare `--flag` into a map; positional words are returned apart.
 * Given a spec, any flag outside it (`--prot`, `-p`), a missing value or a value given to a bare
 * flag throws UsageError; `-h` is `--help` and `--` ends the flags. */
export function parseArgs(argv: readonly string[], spec?: FlagSpec): { words: string[]; flags: Flags } {
  const words: string[] = [];
  const flags: Flags = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      words.push(...argv.slice(i + 1));
      break;
    }
    if (spec && arg === "-h") {
      if (spec.help !== "boolean") throw new UsageError("Unknown flag: -h");
      flags.help = true;
      continue;
    }
    if (!arg.startsWith("-") || arg === "-" || (!spec && !arg.startsWith("--"))) {
      words.push(arg);
      continue;
    }
    if (!arg.startsWith("--")) throw new UsageError(`Unknown flag: ${arg} (flags are spelled out, e.g. --port)`);
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq > 0 ? eq : undefined);
    const kind = spec ? spec[name] : undefined;
    if (spec && kind === undefined) throw new UsageError(`Unknown flag: --${name}`);
    const next = argv[i + 1];
    if (eq > 0) {
      if (kind === "boolean") throw new UsageError(`--${name} takes no value.`);
      flags[name] = arg.slice(eq + 1);
    } else if (kind === "boolean") {
      flags[name] = true;
    } else if (next !== undefined && !next.startsWith("--")) {
      flags[name] = next;
      i++;
    } else if (kind === "string") {
      throw new UsageError(`--${name} needs a value.`);
    } else {
      flags[name] = true;
    }
  }
  return { words, flags };
}
