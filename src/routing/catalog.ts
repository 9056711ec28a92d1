// The model catalog: models.json plus GW_CONFIG overrides (docs/models.md "Overriding the catalog"), indexed once.
import type { CatalogFile, CatalogModel } from "./catalog-types.ts";
import catalogFile from "./models.json" with { type: "json" };

export interface Catalog {
  readonly models: readonly CatalogModel[];
  readonly pricesAsOf: string;
  get(id: string): CatalogModel | undefined;
  /** A full `<provider>/<model>` id, or a bare upstream id that names exactly one model. */
  resolve(name: string): CatalogModel | undefined;
}

export function buildCatalog(file: CatalogFile = catalogFile as CatalogFile, overrides: CatalogModel[] = []): Catalog {
  const byId = new Map<string, CatalogModel>();
  for (const m of file.models) byId.set(m.id, m);
  for (const m of overrides) byId.set(m.id, m);
  const models = [...byId.values()];

  // Bare ids map to their model only when unambiguous; an ambiguous name maps to null.
  const byBare = new Map<string, CatalogModel | null>();
  for (const m of models) byBare.set(m.upstream_id, byBare.has(m.upstream_id) ? null : m);

  return {
    models,
    pricesAsOf: file.prices_as_of,
    get: (id) => byId.get(id),
    resolve: (name) => byId.get(name) ?? byBare.get(name) ?? undefined,
  };
}
