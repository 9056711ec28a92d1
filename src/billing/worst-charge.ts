// The most a call can be charged (docs/billing.md): its worst-case cost plus markup, none when the
// project's own provider key serves it. Routing's downgrade exclusion and reserve's hold use it.
import type { ProjectProviders } from "../providers/project-providers.ts";
import type { CatalogModel } from "../routing/catalog-types.ts";
import { costOf, worstCostOf, type OutputAsk } from "../routing/cost.ts";
import { chargeNano } from "./money.ts";

/** Whether the project's own provider key would serve this model (no markup then). */
export const servedByok = (providers: ProjectProviders, projectId: string, byokOnly: boolean, m: CatalogModel): boolean =>
  providers.resolve(projectId, m.provider, byokOnly)?.byok ?? false;

/** n choices, each at max_tokens or the model's maximum output, in nano-USD. */
export const worstCharge = (m: CatalogModel, inputTokens: number, ask: OutputAsk, byok: boolean): number =>
  chargeNano(worstCostOf(m, inputTokens, ask), byok);

/** Embeddings: the input's token bound at the model's input price (no output tokens). */
export const worstEmbedCharge = (m: CatalogModel, inputBound: number, byok: boolean): number =>
  chargeNano(costOf(m, { promptTokens: inputBound, completionTokens: 0, cachedTokens: 0 }), byok);
