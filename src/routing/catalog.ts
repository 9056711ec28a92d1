// The model catalog: models.json plus GW_CONFIG overrides and aliases (docs/config.md "Models"), indexed once.
import { TEST_MODEL_PREFIX } from "../config/constants.ts";
import type { ModelEntry } from "../schema/config-file.ts";
import { buildAliases, type Aliases } from "./aliases.ts";
import type { CatalogFile, CatalogModel } from "./catalog-types.ts";
import { mergeModels } from "./catalog-merge.ts";
import { isProfile } from "./profiles.ts";
import catalogFile from "./models.json" with { type: "json" };

export interface Catalog {
  readonly models: readonly CatalogModel[];
  readonly pricesAsOf: string;
  readonly aliases: Aliases;
  get(id: string): CatalogModel | undefined;
  /** A full `<provider>/<model>` id, or a bare upstream id that names exactly one model. */
  resolve(name: string): CatalogModel | undefined;
  /** The name to route for a requested one: an exact alias's target (one Map lookup), the name
   * itself when it is known, else the target of a matching wildcard alias (docs/config.md "Aliases"). */
  routed(name: string): string;
}

/** `overrides` and `aliases` come from GW_CONFIG (docs/config.md); their errors (ModelEntryError,
 * AliasError) start with the entry's JSON path. */
export function buildCatalog(file: CatalogFile = catalogFile as CatalogFile, overrides: readonly ModelEntry[] = [], aliasEntries: Readonly<Record<string, string>> = {}): Catalog {
  const byId = mergeModels(file.models, overrides);
  const models = [...byId.values()];

  // Bare ids map to their model only when unambiguous; an ambiguous name maps to null.
  const byBare = new Map<string, CatalogModel | null>();
  for (const m of models) byBare.set(m.upstream_id, byBare.has(m.upstream_id) ? null : m);

  const resolve = (name: string) => byId.get(name) ?? byBare.get(name) ?? undefined;
  const known = (name: string) => resolve(name) !== undefined || isProfile(name) || name.startsWith(TEST_MODEL_PREFIX);
  const aliases = buildAliases(aliasEntries, (target) => (isProfile(target) ? target : resolve(target)?.id ?? null), known);
  const { exact } = aliases;
  return {
    models,
    pricesAsOf: file.prices_as_of,
    aliases,
    get: (id) => byId.get(id),
    resolve,
    routed: aliases.hasWildcards
      ? (name) => exact.get(name) ?? (known(name) ? name : aliases.wildcard(name) ?? name)
      : (name) => exact.get(name) ?? name,
  };
}
