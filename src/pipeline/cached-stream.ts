// A cached answer served to a streaming request (docs/cache.md "Hits": "streaming requests may be
// answered from cache"): the stored completion as the chunk events a provider would have sent.
import { chunksOf } from "../providers/completion-chunks.ts";
import type { ChatCompletion, ChunkEvent } from "../canonical/completion.ts";

export async function* cachedChunks(completion: ChatCompletion): AsyncGenerator<ChunkEvent> {
  for (const chunk of chunksOf(completion)) yield { type: "chunk", chunk };
}
