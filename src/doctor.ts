// `gw doctor`: checks that this build of gw works on this machine (embedded SQLite with its
// migrations, the native vector-index addon, the tokenizer, the model catalog, the sentence model),
// and reaches GW_DATABASE_URL's PostgreSQL and GW_REDIS_URL's Redis when they are set.
import { Database } from "bun:sqlite";
import { countTextTokens } from "./analysis/tokens.ts";
import { UseLiteEmbedder } from "./cache/embedder/use-lite.ts";
import { hnswSelfCheck } from "./cache/hnsw-addon.ts";
import { COMPONENT_VERSIONS } from "./config/versions.ts";
import { buildCatalog } from "./routing/catalog.ts";
import { parseDatabaseUrl, parseRedisUrl } from "./config/scale-out.ts";
import { migrate, MIGRATIONS } from "./store/migrate.ts";
import { probePostgres, probeRedis, type ProbeResult } from "./store/service-probes.ts";

/** How long each shared-state server has to answer; they are probed alongside the sentence model's load. */
export const SERVICE_PROBE_TIMEOUT_MS = 5000;

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

type Check = { ok: boolean; detail: unknown };

/** `postgres` and `redis` checks for whichever of the two variables is set (docs/scale-out.md "gw doctor"). */
async function sharedStateChecks(env: Record<string, string | undefined>): Promise<Record<string, Check>> {
  const probe = async (parse: () => string | null, run: (url: string, ms: number) => Promise<ProbeResult>): Promise<Check | null> => {
    let url: string | null;
    try {
      url = parse();
    } catch (err) {
      return { ok: false, detail: err instanceof Error ? err.message : String(err) };
    }
    return url === null ? null : run(url, SERVICE_PROBE_TIMEOUT_MS);
  };
  const [postgres, redis] = await Promise.all([
    probe(() => parseDatabaseUrl(env.GW_DATABASE_URL), probePostgres),
    probe(() => parseRedisUrl(env.GW_REDIS_URL), probeRedis),
  ]);
  return { ...(postgres && { postgres }), ...(redis && { redis }) };
}

/** Every check of doctor(), the sentence model's (it loads in a worker and so is awaited), and the
 * shared-state servers' named by `env`. */
export async function doctorWithModel(env: Record<string, string | undefined> = process.env) {
  const report = doctor();
  const [sentence_model, shared] = await Promise.all([sentenceModel(), sharedStateChecks(env)]);
  const checks: typeof report.checks & { sentence_model: Check } & Record<string, Check> = { ...report.checks, sentence_model, ...shared };
  return { ...report, ok: Object.values(checks).every((c) => c.ok), checks };
}
