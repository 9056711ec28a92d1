// What every pipeline's call stage shares (chat: stages/call.ts, embeddings: embed/call.ts): whose
// provider serves an attempt, and the boundary that turns any adapter error into an upstream
// failure. The attempt's own bookkeeping is attempt-log.ts.
import type { ResolvedProvider } from "../providers/project-providers.ts";
import { UpstreamFailure } from "../canonical/failure.ts";
import type { CatalogModel } from "../routing/catalog-types.ts";
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
