// What an embeddings request adds to the shared request state (state.ts): the texts, the vector
// size and encoding asked for, and the provider's result. Kept beside the chat state rather than
// in it, since no chat stage reads any of it.
import type { EmbeddingResult } from "../../canonical/embeddings.ts";
import type { RequestState } from "../state.ts";

export interface EmbedJob {
  /** Always a list; a lone string becomes one item (the provider call's canonical form). */
  input: string[];
  dimensions?: number;
  encoding: "float" | "base64";
  /** The body named no model, so the default embedding model serves it (trace.reason). */
  defaulted: boolean;
  result?: EmbeddingResult;
}

export type EmbedState = RequestState & { embed: EmbedJob };

export function toEmbedState(state: RequestState): EmbedState {
  return Object.assign(state, { embed: { input: [], encoding: "float" as const, defaulted: false } });
}
