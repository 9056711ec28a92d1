// Constants fixed by the API (docs/api.md "Limits", "Versioning", "Authentication").

export const API_VERSION = "2026-10-04";
export const API_BASE_PATH = "/v1";

export const LIMITS = {
  requestsPageDefault: 20,
  requestsPageMax: 100,
  tagsPerRequest: 20,
  traceIdLength: 40,
  parentSpanLength: 24,
  invalidationTags: 100,
  invalidationTagLength: 120,
  bodyBytes: 10 * 1024 * 1024,
  // Request input (docs/api.md "Limits"; issue 14): each answered 400 invalid_request naming the
  // param, except a late body (408) and an oversized one (413), both code invalid_request.
  /** A body must arrive within this long of the request's headers. */
  bodyReadMs: 60_000,
  /** Brackets nested deeper than this are refused before JSON.parse (the body is level 1). */
  jsonDepth: 64,
  /** gw.workflow_id, gw.step, gw.agent; the session id keeps its own 200 (routing/sessions.ts). */
  labelLength: 200,
  tagLength: 120,
  /** OpenAI's own metadata limits. */
  metadataKeys: 16,
  metadataKeyLength: 64,
  metadataValueLength: 512,
  userLength: 256,
  /** OpenAI's own limit on tools per request. */
  toolsPerRequest: 128,
} as const;

export const ROUTING_PROFILES = [
  "gw-auto", "gw-fast", "gw-balanced", "gw-quality", "gw-max", "gw-reasoning", "gw-code",
] as const;
export type RoutingProfile = (typeof ROUTING_PROFILES)[number];
export const DEFAULT_PROFILE: RoutingProfile = "gw-auto";

export const KEY_SCOPES = ["chat", "embeddings", "models", "cache", "requests"] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];
/** `requests` must be granted explicitly (docs/api.md "Authentication"). */
export const DEFAULT_SCOPES: readonly KeyScope[] = ["chat", "embeddings", "models", "cache"];

export const TEST_MODEL_PREFIX = "gw-test:";

/** /embeddings (docs/api.md "Embeddings"): the model used when the body names none. An explicit id,
 * never a profile: vectors of different models are not interchangeable, so nothing is routed. */
export const DEFAULT_EMBEDDING_MODEL = "openai/text-embedding-3-small";
/** OpenAI's own limit on inputs per embeddings request, kept so clients behave the same. */
export const MAX_EMBEDDING_INPUTS = 2048;
/** Test keys' simulated vectors have this many dimensions (docs/api.md "Embeddings"). */
export const TEST_EMBEDDING_DIMENSIONS = 16;
