// Versions of the components that handle a request (`versions`, docs/api.md "Request detail"). Bump a
// component's version when its decisions change, so logged requests say which logic served them.
import pkg from "../../package.json" with { type: "json" };

export const COMPONENT_VERSIONS = Object.freeze({
  gateway: pkg.version,
  api: "2026-10-04",
  router: "profiles-1",
  intelligence: "keywords-1",
  catalog: "1",
  /** Exact keys and classification (cache/key.ts, policy.ts); the semantic decision (semantic-decision.ts). */
  cache: "exact-1",
  semantic_cache: "use-lite-guard-1",
  /** No compression stage yet (pipeline/stages/optimize.ts). */
  token_engine: "passthrough-1",
  guard: "ip-allowlist-1",
});
