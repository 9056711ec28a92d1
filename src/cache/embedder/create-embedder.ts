// Chooses the semantic cache's embedder from configuration (docs/semantic-cache.md "Embedders"): the sentence
// model shipped in the binary, the model-free hashed n-grams, or a provider's embedding model.
import { NgramEmbedder } from "./ngram.ts";
import { ProviderEmbedder, type EmbedFunction } from "./provider.ts";
import type { Embedder } from "./types.ts";
import { UseLiteEmbedder, type UseLiteOptions } from "./use-lite.ts";

export type { Embedder } from "./types.ts";
export type EmbedderKind = "use" | "ngram" | "provider";

export interface EmbedderConfig {
  use?: UseLiteOptions;
  ngram?: { dimensions?: number };
  /** Required for kind "provider". */
  provider?: { embed: EmbedFunction; dimensions: number; model: string };
}

export function createEmbedder(kind: EmbedderKind, config: EmbedderConfig = {}): Embedder {
  switch (kind) {
    case "use":
      return new UseLiteEmbedder(config.use);
    case "ngram":
      return new NgramEmbedder(config.ngram?.dimensions);
    case "provider": {
      const p = config.provider;
      if (p === undefined) throw new Error("the provider embedder needs an embed function, its dimensions and its model");
      return new ProviderEmbedder(p.embed, p.dimensions, p.model);
    }
  }
}
