// Shape of the model catalog data file (models.json) and of its GW_CONFIG overrides
// (docs/models.md "Overriding the catalog"; docs/api.md "Models").

import { TASK_KINDS } from "../schema/config-file.ts";

export { TASK_KINDS };
export type TaskKind = (typeof TASK_KINDS)[number];

export interface ModelCapabilities {
  tools: boolean;
  vision: boolean;
  json: boolean;
  reasoning: boolean;
  embeddings: boolean;
}

export interface CatalogModel {
  /** `<provider>/<model>` */
  id: string;
  provider: string;
  /** The id the provider's API expects. */
  upstream_id: string;
  name: string;
  owned_by: string;
  /** Release date, epoch seconds. */
  created: number;
  /** USD per million tokens. */
  input_price: number;
  output_price: number;
  cached_input_price: number | null;
  /** Price of writing input into the provider's prompt cache (Anthropic: 1.25x input for the
   * 5-minute cache); absent where writes cost the plain input price. */
  cache_write_price?: number;
  context_window: number;
  max_output_tokens: number;
  capabilities: ModelCapabilities;
  /** 0..1 per task kind; `general` is the overall score shown as `gw.quality`. */
  quality: Record<TaskKind, number>;
  /** Embedding models only: the size of their vectors. */
  dimensions?: number;
  /** Embedding models that accept a smaller vector size (`dimensions` on /embeddings, 1 up to
   * `dimensions`); absent where the size is fixed (mistral-embed). */
  dimensions_configurable?: boolean;
  /** Where the model processes requests (e.g. "eu", "us"), as the operator declares it in
   * GW_CONFIG; projects that restrict regions use only models whose regions are declared. */
  regions?: string[];
}

export interface CatalogFile {
  /** Date the prices were read, YYYY-MM-DD. */
  prices_as_of: string;
  models: CatalogModel[];
}
