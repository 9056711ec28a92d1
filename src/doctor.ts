// `gw doctor`: checks that this build of gw works on this machine (embedded SQLite with its
// migrations, the native vector-index addon, the tokenizer, the model catalog, the sentence model).
import { Database } from "bun:sqlite";
import { countTextTokens } from "./analysis/tokens.ts";
import { UseLiteEmbedder } from "./cache/embedder/use-lite.ts";
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

/** The semantic cache's sentence model, loaded from the binary in its worker as `gw serve` loads it:
 * ready when it embeds one sentence into a 512-dim unit vector (docs/semantic-cache.md "Cold start"). */
async function sentenceModel(): Promise<{ ok: boolean; detail: unknown }> {
  // Generous: the load shares the machine with whatever else runs; serve's lookups keep their own timeout.
  const embedder = new UseLiteEmbedder({ timeoutMs: 60_000 });
  try {
    const [vector] = await embedder.embed(["Is the sentence model ready?"]);
    let norm = 0;
    for (const x of vector ?? []) norm += x * x;
    if (vector?.length !== embedder.dimensions || Math.abs(Math.sqrt(norm) - 1) > 1e-3) throw new Error(`embedded a ${vector?.length ?? 0}-dim vector of norm ${Math.sqrt(norm)}`);
    return { ok: true, detail: { ready: true, dimensions: vector.length, load_ms: Math.round(embedder.loadMs) } };
  } catch (err) {
    return { ok: false, detail: err instanceof Error ? err.message : String(err) };
  } finally {
    await embedder.close();
  }
}

/** Every check of doctor() and the sentence model's, which loads in a worker and so is awaited. */
export async function doctorWithModel() {
  const report = doctor();
  const checks = { ...report.checks, sentence_model: await sentenceModel() };
  return { ...report, ok: report.ok && checks.sentence_model.ok, checks };
}
