// Embeddings stage route: the requested (or default) embedding model, alone. No profiles and no
// fallback to another model: vectors of different models live in different spaces, so a caller
// mixing them would get silently wrong similarities. Writes scenario, ranked, candidates, reason.
import { DEFAULT_EMBEDDING_MODEL } from "../../config/constants.ts";
import { GwError, invalidRequest } from "../../errors/gw-error.ts";
import { isTestModel, testScenarioOf } from "../../providers/sandbox/scenarios.ts";
import type { CatalogModel } from "../../routing/catalog-types.ts";
import type { Deps } from "../deps.ts";
import { explainExclusion, providerExclusion } from "../eligibility.ts";
import type { EmbedState } from "./embed-state.ts";

const notFound = (message: string): GwError => new GwError("model_not_found", message, { param: "model" });

/** A `gw-test:<name>` model (test keys only, docs/api.md "Test mode") embeds with the default model. */
function testModel(deps: Deps, state: EmbedState, name: string): CatalogModel {
  const scenario = state.auth.test ? testScenarioOf(name) : undefined;
  if (!scenario) throw notFound(`The model '${name}' does not exist.`);
  state.scenario = scenario;
  if (scenario.kind === "gateway") throw new GwError(scenario.code, `Simulated ${scenario.code} (test mode).`);
  return embeddingModel(deps, DEFAULT_EMBEDDING_MODEL);
}

function embeddingModel(deps: Deps, name: string): CatalogModel {
  const m = deps.catalog.resolve(name);
  if (!m) throw notFound(`The model '${name}' does not exist.`);
  if (!m.capabilities.embeddings) throw notFound(`The model '${m.id}' is not an embedding model; see GET /models for those with embeddings: true.`);
  return m;
}

/** `dimensions` only where the model can shorten its vectors, and never past their full size.
 * Checked for test keys too, so a request that passes in test mode passes live. */
function checkDimensions(m: CatalogModel, dimensions: number | undefined): void {
  if (dimensions === undefined) return;
  if (!m.dimensions_configurable) {
    throw invalidRequest(`The model '${m.id}' does not support 'dimensions'; its vectors always have ${m.dimensions} dimensions.`, "dimensions");
  }
  if (m.dimensions !== undefined && dimensions > m.dimensions) {
    throw invalidRequest(`'dimensions' must be at most ${m.dimensions} for the model '${m.id}'; got ${dimensions}.`, "dimensions");
  }
}

export function routeEmbeddings(deps: Deps, state: EmbedState): void {
  const name = deps.catalog.routed(state.requestedModel ?? DEFAULT_EMBEDDING_MODEL);
  const m = isTestModel(name) ? testModel(deps, state, name) : embeddingModel(deps, name);
  checkDimensions(m, state.embed.dimensions);
  const why = providerExclusion(deps, state, m);
  state.candidates.push({ model: m.id, provider: m.provider, rank: why ? null : 0, ...(why ? { excluded: why } : {}) });
  if (why) throw new GwError("no_model_available", `The model '${m.id}' cannot serve this request: ${explainExclusion(why, m.provider)}.`, { param: "model" });
  state.ranked.push(m);
  state.reason = state.scenario ? `test scenario ${name}` : state.embed.defaulted ? "default embedding model" : "model requested explicitly";
}
