// Which rate limits apply to a request (docs/rate-limits.md): the project's policy `rate_limits`
// {rpm, tpm} counted for the whole project, and `rate_limits.per_key` {rpm, tpm} counted for each
// key on its own. Test keys are limited like live keys, in a project allowance of their own.
import type { Level, Limits } from "./rate-limit.ts";

export interface RateLimitSubject {
  projectId: string;
  policy: Record<string, unknown>;
  keyId: string;
  test: boolean;
}

const positive = (v: unknown): number | undefined => (typeof v === "number" && v > 0 ? v : undefined);

function limitsOf(value: unknown): Limits | null {
  if (typeof value !== "object" || value === null) return null;
  const { rpm, tpm } = value as { rpm?: unknown; tpm?: unknown };
  const limits: Limits = { rpm: positive(rpm), tpm: positive(tpm) };
  return limits.rpm || limits.tpm ? limits : null;
}

/** Cheap enough for every request: a project without `rate_limits` skips the stage, span and all. */
export const hasRateLimits = (policy: Record<string, unknown>): boolean =>
  typeof policy.rate_limits === "object" && policy.rate_limits !== null;

export function rateLimitLevels(s: RateLimitSubject): Level[] | null {
  const policy = s.policy.rate_limits;
  if (typeof policy !== "object" || policy === null) return null;
  const levels: Level[] = [];
  const project = limitsOf(policy);
  // Test traffic (CI, load tests) gets the same numbers but never eats the live allowance.
  if (project) levels.push({ id: `p:${s.projectId}:${s.test ? "test" : "live"}`, name: "project", limits: project });
  const key = limitsOf((policy as { per_key?: unknown }).per_key);
  if (key) levels.push({ id: `k:${s.keyId}`, name: "key", limits: key });
  return levels.length > 0 ? levels : null;
}
