// GW_SEMANTIC_EMBEDDER=provider (docs/semantic-cache.md "Embedders"): questions embedded by a
// catalog embedding model through gw's own adapter and the operator's key; the operator's cost,
// neither logged nor charged to a project.
import { DEFAULT_EMBEDDING_MODEL } from "../config/constants.ts";
import type { ProviderRegistry } from "../providers/registry.ts";
import type { Catalog } from "../routing/catalog.ts";
import { createEmbedder } from "./embedder/create-embedder.ts";
import type { Embedder } from "./embedder/types.ts";

/** Per call: a question lookup must be quick or it is a miss. */
const TIMEOUT_MS = 2000;

export function providerEmbedder(catalog: Catalog, providers: ProviderRegistry, modelId: string | null): Embedder {
  const model = catalog.resolve(modelId ?? DEFAULT_EMBEDDING_MODEL);
  if (!model?.capabilities.embeddings || !model.dimensions) throw new Error(`GW_SEMANTIC_EMBEDDING_MODEL: '${modelId}' is not an embedding model of the catalog`);
  const provider = providers.get(model.provider);
  if (!provider?.embed) throw new Error(`GW_SEMANTIC_EMBEDDER=provider: the provider of '${model.id}' is not enabled or serves no embeddings`);
  const embed = provider.embed.bind(provider);
  return createEmbedder("provider", {
    provider: {
      model: model.id,
      dimensions: model.dimensions,
      embed: async (texts) => {
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
        try {
          const result = await embed({ model, input: texts, controller, signal: controller.signal });
          return result.data.map((d) => d.embedding);
        } finally {
          clearTimeout(timer);
        }
      },
    },
  });
}
