// The canonical embeddings result.

/** Canonical embeddings result (OpenAI's shape with float vectors, in input order). */
export interface EmbeddingResult {
  model: string;
  data: Array<{ index: number; embedding: number[] }>;
  usage: { prompt_tokens: number; total_tokens: number };
}

