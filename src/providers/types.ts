// The provider contract: what the pipeline calls and what an adapter receives.
import type { ChatRequest } from "../canonical/chat.ts";
import type { ChatCompletion, ChunkEvent } from "../canonical/completion.ts";
import type { EmbeddingResult } from "../canonical/embeddings.ts";
import type { CatalogModel } from "../routing/catalog-types.ts";

export interface ProviderCall {
  model: CatalogModel;
  request: ChatRequest;
  /** This attempt's controller: aborted when the client goes away or the deadline passes. */
  controller: AbortController;
  signal: AbortSignal;
  /** 0 for the first attempt of the request, 1 for the next... */
  attempt: number;
}

/** An embeddings call in canonical form: always a list of texts; floats come back. */
export interface EmbedCall {
  model: CatalogModel;
  input: string[];
  /** Requested vector size, where the model supports it. */
  dimensions?: number;
  controller: AbortController;
  signal: AbortSignal;
  /** 0 for the first attempt of the request, 1 for its retry (test scenarios fail the first only). */
  attempt?: number;
  /** The model name as the caller sent it: the sandbox reads `gw-test:<name>` scenarios from it. */
  requestedModel?: string;
}

/** What the pipeline calls. HTTP providers are an adapter plus the transport; sandbox simulates. */
export interface Provider {
  id: string;
  complete(call: ProviderCall): Promise<ChatCompletion>;
  /** Resolves once the upstream accepted the stream (so failures before that can fall back). */
  stream(call: ProviderCall): Promise<AsyncIterable<ChunkEvent>>;
  /** Embeddings, for providers that serve them (OpenAI-compatible, Gemini). */
  embed?(call: EmbedCall): Promise<EmbeddingResult>;
}
