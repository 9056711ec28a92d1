// The provider embedder (docs/semantic-cache.md "Embedders"): an embedding model reached through gw's own provider
// adapters. This class only adapts the call and normalises; the wiring to a provider lives with the
// pipeline, which passes the function.
import { normalize, type Embedder } from "./types.ts";

export type EmbedFunction = (texts: string[]) => Promise<number[][]>;

export class ProviderEmbedder implements Embedder {
  readonly name: string;

  /** `model` names the upstream model, so an index built with one model is never searched with another. */
  constructor(
    private readonly call: EmbedFunction,
    readonly dimensions: number,
    model: string,
  ) {
    this.name = `provider:${model}`;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const rows = await this.call(texts);
    if (rows.length !== texts.length) throw new Error(`provider embedder returned ${rows.length} vectors for ${texts.length} texts`);
    return rows.map((row) => {
      // A model that changed its size under the same name would corrupt the index: refuse it.
      if (row.length !== this.dimensions) throw new Error(`provider embedder returned ${row.length} dimensions, expected ${this.dimensions}`);
      return normalize(Float32Array.from(row));
    });
  }

  ready(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
