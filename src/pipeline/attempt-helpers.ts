// What every pipeline's call stage shares (chat: stages/call.ts, embeddings: embed/call.ts): whose
// provider serves an attempt, the boundary that turns any adapter error into an upstream failure,
// how a failed attempt is recorded, and which outcomes feed provider health.
import type { ResolvedProvider } from "../providers/project-providers.ts";
import { UpstreamFailure } from "../canonical/failure.ts";
import type { CatalogModel } from "../routing/catalog-types.ts";
import type { HealthOutcome } from "../routing/health.ts";
import type { SpanAttributes } from "../observability/trace.ts";
import type { Deps } from "./deps.ts";
import type { RequestState } from "./state.ts";

/** The sandbox for test keys; else the project's own key for the provider, or the operator's. */
export function providerFor(deps: Deps, state: RequestState, model: CatalogModel): ResolvedProvider | undefined {
  if (state.auth.test) return { provider: deps.sandbox, byok: false };
  return deps.projectProviders.resolve(state.auth.project.id, model.provider, state.auth.key.byok);
}

/** The per-attempt boundary: anything an adapter throws becomes an upstream failure. */
export function asFailure(err: unknown, deps: Deps): UpstreamFailure {
  if (err instanceof UpstreamFailure) return err;
  deps.logger.error({ err }, "provider adapter threw an unexpected error");
  return UpstreamFailure.unexpected("The provider call failed unexpectedly.");
}

/** Feeds provider health, except where the outcome says nothing about the provider: test keys and
 * a client that went away. A project's own key (BYOK, `credential`) feeds only its own breakers
 * (routing/health.ts), never the shared circuit other projects are routed by. */
export function reportHealth(
  deps: Deps, state: RequestState, model: CatalogModel, outcome: HealthOutcome, probe: boolean, byok: boolean, credential?: string,
): void {
  if (state.auth.test || state.cancelled) return;
  deps.health.record(model.provider, model.id, outcome, probe, byok ? credential ?? `byok:${state.auth.project.id}` : null);
}

/** A failed attempt: its llm span, its upstream time and its trace entry; returns the failure. */
export function recordFailedAttempt(
  deps: Deps, state: RequestState, err: unknown, model: CatalogModel, providerId: string, start: number, attrs: SpanAttributes, byok: boolean,
): UpstreamFailure {
  const failure = asFailure(err, deps);
  const end = state.spans.now();
  const code = failure.toGwError().code;
  state.spans.add("llm", start, end, code, attrs);
  state.upstreamMs += end - start;
  state.attempts.push({
    model: model.id, provider: providerId, status: "error", error_code: code, failure_class: failure.failureClass,
    upstream_status: failure.upstreamStatus, duration_ms: Math.round(end - start), byok: byok || undefined,
  });
  return failure;
}
