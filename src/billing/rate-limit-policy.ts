// Which rate limits apply to a request (docs/rate-limits.md): the project's policy `rate_limits`
// {rpm, tpm} counted for the whole project, and `rate_limits.per_key` {rpm, tpm} counted for each
// key on its own. Test keys are limited like live keys, in a project allowance of their own.
import type { Policy } from "../schema/admin.ts";
import type { Level, Limits } from "./rate-limit.ts";

export interface RateLimitSubject {
  projectId: string;
  policy: Policy;
  keyId: string;
  test: boolean;
}

function limitsOf(value: Limits | undefined): Limits | null {
  if (!value) return null;
  const limits: Limits = { rpm: value.rpm, tpm: value.tpm };
  return limits.rpm || limits.tpm ? limits : null;
}

/** Built once per authenticated key (auth/project-rules.ts); null when no limit is set. */
export function rateLimitLevels(s: RateLimitSubject): Level[] | null {
  const policy = s.policy.rate_limits;
  if (!policy) return null;
  const levels: Level[] = [];
  const project = limitsOf(policy);
  // Test traffic (CI, load tests) gets the same numbers but never eats the live allowance.
  if (project) levels.push({ id: `p:${s.projectId}:${s.test ? "test" : "live"}`, name: "project", limits: project });
  const key = limitsOf(policy.per_key);
  if (key) levels.push({ id: `k:${s.keyId}`, name: "key", limits: key });
  return levels.length > 0 ? levels : null;
}
