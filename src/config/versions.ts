// Versions of the components that handle a request (`versions`, docs/api.md "Request detail"). Bump a
// component's version when its decisions change, so logged requests say which logic served them.
import pkg from "../../package.json" with { type: "json" };

export const COMPONENT_VERSIONS = Object.freeze({
  gateway: pkg.version,
  api: "2026-10-04",
  router: "profiles-2",
  intelligence: "classifier-2",
  catalog: "1",
  /** Exact keys and classification (cache/key.ts, policy.ts); the semantic decision (semantic-decision.ts). */
  cache: "exact-1",
  semantic_cache: "use-lite-learned-2",
  /** The token engine's stages and gates (src/optimization/, docs/optimization.md). */
  token_engine: "stages-2",
  guard: "ip-allowlist-1",
});
