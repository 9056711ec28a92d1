// A project's policy compiled for one authenticated key, once, and cached with it (auth-cache.ts):
// the request path reads its settings here, never the policy JSON. An admin write clears the cache,
// so a changed policy is compiled again on the next request.
import { termsOf } from "../billing/terms.ts";
import type { Terms } from "../billing/account.ts";
import { rateLimitLevels } from "../billing/rate-limit-policy.ts";
import type { Level } from "../billing/rate-limit.ts";
import { cacheRulesOf, type CacheRules } from "../cache/policy.ts";
import { guardPolicyOf, type GuardPolicy } from "../guard/content-guard.ts";
import type { Policy } from "../schema/admin.ts";
import type { ApiKey } from "../store/repos/api-keys.ts";
import type { Project } from "../store/repos/projects.ts";
import { allowlistOf, type Allowlists } from "./ip-allowlist.ts";

/** What gw may keep of a request's content (docs/retention.md); unset is standard. */
export type Retention = NonNullable<Policy["retention"]>;

export interface ProviderRules {
  /** Only these providers, when set (an empty list allows none). */
  readonly allowed: readonly string[] | null;
  readonly blocked: readonly string[] | null;
  /** Only models declared in one of these regions; null when unrestricted. */
  readonly regions: readonly string[] | null;
}

export interface ProjectRules {
  readonly retention: Retention;
  /** PII and secrets actions, defaults applied (docs/guard.md). */
  readonly guard: GuardPolicy;
  readonly ipAllowlists: Allowlists;
  /** Null when the policy sets no `rate_limits` (the stage is skipped); `levels` null when the
   * object sets no limit. */
  readonly rateLimits: { readonly levels: readonly Level[] | null } | null;
  /** Null: nothing to reserve or check (billing/terms.ts). */
  readonly terms: Terms | null;
  readonly cache: CacheRules;
  /** The share of detailed traces kept (1, 0.5, 0.1, 0.01). */
  readonly traceSampleRate: number;
  readonly providers: ProviderRules;
  /** `optimization_mode`: the token engine's mode when a request names none. */
  readonly optimizationMode: NonNullable<Policy["optimization_mode"]>;
}

export function compileRules(project: Project, key: ApiKey): ProjectRules {
  const p = project.policy;
  const test = key.mode === "test";
  return Object.freeze({
    retention: p.retention ?? "standard",
    guard: Object.freeze(guardPolicyOf(p)),
    ipAllowlists: Object.freeze({ project: allowlistOf(p.ip_allowlist), key: allowlistOf(key.ipAllowlist) }),
    rateLimits: p.rate_limits ? Object.freeze({ levels: rateLimitLevels({ projectId: project.id, policy: p, keyId: key.id, test }) }) : null,
    terms: termsOf(project),
    cache: cacheRulesOf(p),
    traceSampleRate: p.trace_sample_rate ?? 1,
    optimizationMode: p.optimization_mode ?? "off",
    providers: Object.freeze({
      allowed: p.allowed_providers ?? null,
      blocked: p.blocked_providers ?? null,
      regions: p.regions && p.regions.length > 0 ? p.regions : null,
    }),
  });
}
