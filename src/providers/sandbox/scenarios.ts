// Test-mode errors on demand (docs/api.md "Test mode"): `gw-test:<name>` picks a scenario.
import { TEST_MODEL_PREFIX } from "../../config/constants.ts";
import type { ErrorCode } from "../../errors/codes.ts";
import type { FailureClass } from "../../canonical/failure.ts";

export type TestScenario =
  /** Raised by the gateway itself, before any provider is called. */
  | { kind: "gateway"; code: ErrorCode }
  /** Every provider attempt fails with this class and public code. */
  | { kind: "upstream"; failureClass: FailureClass; code: ErrorCode }
  | { kind: "fallback" }
  | { kind: "stream_error" };

const SCENARIOS: Readonly<Record<string, TestScenario>> = {
  invalid_request: { kind: "gateway", code: "invalid_request" },
  blocked_by_policy: { kind: "gateway", code: "blocked_by_policy" },
  budget_exceeded: { kind: "gateway", code: "budget_exceeded" },
  insufficient_credits: { kind: "gateway", code: "insufficient_credits" },
  plan_limit: { kind: "gateway", code: "plan_limit" },
  no_model_available: { kind: "gateway", code: "no_model_available" },
  rate_limited: { kind: "upstream", failureClass: "rate_limit", code: "rate_limited" },
  upstream_error: { kind: "upstream", failureClass: "transient", code: "upstream_error" },
  provider_unavailable: { kind: "upstream", failureClass: "transient", code: "provider_unavailable" },
  timeout: { kind: "upstream", failureClass: "timeout", code: "timeout" },
  fallback: { kind: "fallback" },
  stream_error: { kind: "stream_error" },
};

export const isTestModel = (model: string): boolean => model.startsWith(TEST_MODEL_PREFIX);

/** The scenario named by a `gw-test:<name>` model, or undefined for an unknown name. */
export const testScenarioOf = (model: string): TestScenario | undefined => {
  const name = model.slice(TEST_MODEL_PREFIX.length);
  // Own keys only: `gw-test:constructor` must not find Object.prototype members.
  return Object.hasOwn(SCENARIOS, name) ? SCENARIOS[name] : undefined;
};
