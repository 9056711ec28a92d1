// What the pipeline asks of the semantic cache (docs/cache.md "Semantic lookups"): nearest stored questions in
// a partition, and indexing a freshly stored one. The decision (threshold, literal guard) is the
// pipeline's (stages/cache-semantic.ts), so every embedder is judged by the same rules.
export interface SemanticCandidate {
  /** The answer store's entry id. */
  id: number;
  similarity: number;
}

export interface SemanticCache {
  /** Nearest stored questions of the partition, best first; rejects when the embedder or index fails. */
  search(projectId: string, partition: string, question: string): Promise<SemanticCandidate[]>;
  /** Indexes a stored entry's question, off the request path; multi-instance, every instance's
   * index gets it too (`expiresAt`, the entry's: semantic-shared.ts). */
  add(id: number, partition: string, question: string, projectId: string, expiresAt?: number): void;
  /** Multi-instance: the project was emptied through this instance; every instance's index drops its
   * entries (single-node, the store reports the removed ids instead). */
  emptied?(projectId: string): void;
  /** True when embedding calls a live provider (GW_SEMANTIC_EMBEDDER=provider): test keys then
   * neither search nor index, so they never cause a live provider call (docs/security.md "Keys"). */
  readonly callsProvider?: boolean;
  /** The hit decision may use its classifier: the embedder is the one it was trained with
   * (docs/semantic-cache.md "Hit decision"). */
  readonly learnedDecision?: boolean;
}
