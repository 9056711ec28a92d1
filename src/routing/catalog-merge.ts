// GW_CONFIG model entries applied to the catalog (docs/config.md "Models"): an entry with a catalog
// id overrides only the fields it gives; an entry with a new id is a new model, defaults filled in.
import type { ModelEntry } from "../schema/config-file.ts";
import { TASK_KINDS, type CatalogModel, type ModelCapabilities, type TaskKind } from "./catalog-types.ts";

/** What a new model gets for what its entry leaves out (docs/config.md "Defaults of a new model"). */
export const NEW_MODEL_DEFAULTS = {
  input_price: 0,
  output_price: 0,
  cached_input_price: null,
  context_window: 128_000,
  max_output_tokens: 16_384,
  capabilities: { tools: true, vision: false, json: true, reasoning: false, embeddings: false } satisfies ModelCapabilities,
  general: 0.5,
} as const;

/** A config entry that cannot become a model; `at` is its JSON path (`models[2]`). */
export class ModelEntryError extends Error {}

function qualityOf(given: ModelEntry["quality"], base: CatalogModel | undefined, vision: boolean): Record<TaskKind, number> {
  if (base) return { ...base.quality, ...given };
  // Unscored kinds follow `general`; a model that takes no images scores 0 on vision, as in models.json.
  const general = given?.general ?? NEW_MODEL_DEFAULTS.general;
  const quality = {} as Record<TaskKind, number>;
  for (const kind of TASK_KINDS) quality[kind] = given?.[kind] ?? (kind === "vision" && !vision ? 0 : general);
  return quality;
}

function newModel(entry: ModelEntry, at: string): CatalogModel {
  const { quality, capabilities: given, provider, ...fields } = entry;
  if (!provider) throw new ModelEntryError(`${at}.provider: required for a model that is not in the catalog ('${entry.id}')`);
  const upstream = entry.upstream_id ?? (entry.id.startsWith(`${provider}/`) ? entry.id.slice(provider.length + 1) : entry.id);
  const capabilities = { ...NEW_MODEL_DEFAULTS.capabilities, ...given };
  const contextWindow = entry.context_window ?? NEW_MODEL_DEFAULTS.context_window;
  return {
    provider,
    upstream_id: upstream,
    name: upstream,
    owned_by: provider,
    created: 0,
    input_price: NEW_MODEL_DEFAULTS.input_price,
    output_price: NEW_MODEL_DEFAULTS.output_price,
    cached_input_price: NEW_MODEL_DEFAULTS.cached_input_price,
    context_window: contextWindow,
    max_output_tokens: Math.min(NEW_MODEL_DEFAULTS.max_output_tokens, contextWindow),
    ...fields,
    capabilities,
    quality: qualityOf(quality, undefined, capabilities.vision),
  };
}

function overridden(base: CatalogModel, entry: ModelEntry): CatalogModel {
  const { quality, capabilities, ...fields } = entry;
  return { ...base, ...fields, capabilities: { ...base.capabilities, ...capabilities }, quality: qualityOf(quality, base, false) };
}

/** The catalog's models with the entries applied in order (a later entry for the same id merges
 * onto the earlier result). */
export function mergeModels(builtIn: readonly CatalogModel[], entries: readonly ModelEntry[]): Map<string, CatalogModel> {
  const byId = new Map<string, CatalogModel>();
  for (const m of builtIn) byId.set(m.id, m);
  entries.forEach((entry, i) => {
    const at = `models[${i}]`;
    const base = byId.get(entry.id);
    const model = base ? overridden(base, entry) : newModel(entry, at);
    if (model.max_output_tokens > model.context_window) {
      throw new ModelEntryError(`${at}.max_output_tokens: expected at most context_window (${model.context_window}), got ${model.max_output_tokens}`);
    }
    byId.set(entry.id, model);
  });
  return byId;
}
