// `gw doctor`: checks that this build of gw works on this machine (embedded SQLite with its
// migrations, the native vector-index addon, the tokenizer, the model catalog) and prints JSON.
import { Database } from "bun:sqlite";
import { countTextTokens } from "./analysis/tokens.ts";
import { hnswSelfCheck } from "./cache/hnsw-addon.ts";
import { COMPONENT_VERSIONS } from "./config/versions.ts";
import { buildCatalog } from "./routing/catalog.ts";
import { migrate, MIGRATIONS } from "./store/migrate.ts";

function check(run: () => unknown): { ok: boolean; detail: unknown } {
  try {
    return { ok: true, detail: run() };
  } catch (err) {
    return { ok: false, detail: err instanceof Error ? err.message : String(err) };
  }
}

export function doctor() {
  const checks = {
    sqlite: check(() => {
      const db = new Database(":memory:");
      const applied = migrate(db);
      const version = db.query<{ v: string }, []>("SELECT sqlite_version() AS v").get()?.v;
      db.close();
      if (applied !== MIGRATIONS.length) throw new Error(`applied ${applied} of ${MIGRATIONS.length} migrations`);
      return { version, migrations: applied };
    }),
    hnsw: check(() => {
      if (!hnswSelfCheck()) throw new Error("nearest-neighbour search returned the wrong point");
      return "native addon loaded";
    }),
    tokenizer: check(() => ({ "hello world": countTextTokens("hello world") })),
    catalog: check(() => {
      const catalog = buildCatalog();
      return { models: catalog.models.length, providers: new Set(catalog.models.map((m) => m.provider)).size, prices_as_of: catalog.pricesAsOf };
    }),
  };
  return { ok: Object.values(checks).every((c) => c.ok), versions: COMPONENT_VERSIONS, bun: Bun.version, checks };
}
