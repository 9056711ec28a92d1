// The semantic cache's shared vectors (docs/scale-out.md "Semantic cache"): an instance's own entries
// are embedded and stored in PostgreSQL; another instance's are read from there without embedding
// (only those PostgreSQL lacks are embedded); another model's vectors are never read; drops and an
// emptied project leave PostgreSQL; PostgreSQL gone, every entry is embedded here.
import { describe, expect, test } from "bun:test";
import { createEmbedder } from "../../../src/cache/embedder/create-embedder.ts";
import type { Embedder } from "../../../src/cache/embedder/types.ts";
import { SharedVectorSource, type QueuedEntry } from "../../../src/cache/semantic-shared-vectors.ts";
import type { Postgres } from "../../../src/store/postgres/connect.ts";
import { postgresSemanticVectors, type SemanticVectorStore } from "../../../src/store/postgres/semantic-vectors.ts";
import { migratedPostgresForFile } from "../../helpers/migrated-postgres.ts";
import { waitFor } from "../../helpers/wait-for.ts";

let pg: Postgres;
migratedPostgresForFile({ max: 2, timeoutMs: 5_000 }, (_service, pool) => (pg = pool));

/** The ngram embedder, counting the texts it is asked to embed. */
function countingEmbedder(): Embedder & { texts: string[] } {
  const inner = createEmbedder("ngram");
  const texts: string[] = [];
  return { name: inner.name, dimensions: inner.dimensions, texts, ready: () => inner.ready(), close: () => inner.close(),
    embed: (batch) => {
      texts.push(...batch);
      return inner.embed(batch);
    } };
}

const entry = (id: number, question: string, own: boolean, project = "p1"): QueuedEntry =>
  ({ id, project, partition: `${project}/m`, question, expires: Date.now() + 60_000, from: own ? "a" : "b", own });

async function collect(source: SharedVectorSource, entries: QueuedEntry[]): Promise<Map<number, Float32Array>> {
  const got = new Map<number, Float32Array>();
  await source.vectorsOf(entries, (batch, vectors) => batch.forEach((e, i) => vectors[i] && got.set(e.id, vectors[i]!)));
  return got;
}

describe("vectors shared through PostgreSQL", () => {
  test("one instance embeds and stores its own; another reads them without embedding, and embeds only what is missing", async () => {
    const errors: unknown[] = [];
    const [embedA, embedB] = [countingEmbedder(), countingEmbedder()];
    const a = new SharedVectorSource(embedA, postgresSemanticVectors(pg), () => 1_000, (err) => errors.push(err));
    const b = new SharedVectorSource(embedB, postgresSemanticVectors(pg), () => 1_000, (err) => errors.push(err));
    const questions = Array.from({ length: 11 }, (_, i) => `how do I rotate key number ${i}?`);
    const own = await collect(a, questions.map((q, i) => entry(100 + i, q, true)));
    expect(own.size).toBe(11);
    expect(embedA.texts).toEqual(questions);
    const [stored] = await pg.sql`SELECT count(*)::int AS n, min(embedder) AS embedder FROM semantic_vectors WHERE id BETWEEN 100 AND 110`;
    expect(stored).toEqual({ n: 11, embedder: `${embedA.name}-${embedA.dimensions}` });

    // b is told of a's 11 through the stream, plus one PostgreSQL never got (a's write was lost).
    const foreign = await collect(b, [...questions.map((q, i) => entry(100 + i, q, false)), entry(999, "a question only the stream carried", false)]);
    expect(foreign.size).toBe(12);
    expect(embedB.texts).toEqual(["a question only the stream carried"]);
    for (let i = 0; i < 11; i++) expect([...foreign.get(100 + i)!]).toEqual([...own.get(100 + i)!]);
    expect(errors).toEqual([]);
  });

  test("another model's vectors are not read: that instance embeds for itself", async () => {
    const a = new SharedVectorSource(countingEmbedder(), postgresSemanticVectors(pg), () => 1_000, () => {});
    await collect(a, [entry(200, "what is the refund window?", true)]);
    const other = countingEmbedder();
    const renamed: Embedder = { ...other, name: "ngram-v2", embed: (t) => other.embed(t) };
    const b = new SharedVectorSource(renamed, postgresSemanticVectors(pg), () => 1_000, () => {});
    expect((await collect(b, [entry(200, "what is the refund window?", false)])).size).toBe(1);
    expect(other.texts).toEqual(["what is the refund window?"]);
  });

  test("dropped answers and an emptied project leave PostgreSQL", async () => {
    const a = new SharedVectorSource(countingEmbedder(), postgresSemanticVectors(pg), () => 1_000, () => {});
    await collect(a, [entry(300, "one", true, "p3"), entry(301, "two", true, "p3"), entry(302, "three", true, "p4")]);
    a.forgetIds([300]);
    a.forgetProject("p4");
    const left = async () => (await pg.sql`SELECT id::int AS id FROM semantic_vectors WHERE id BETWEEN 300 AND 302 ORDER BY id`).map((r: { id: number }) => r.id);
    await waitFor(async () => (await left()).length === 1);
    expect(await left()).toEqual([301]);
  });

  test("PostgreSQL unreachable: every entry is embedded here, the failure said once", async () => {
    const errors: unknown[] = [];
    const embed = countingEmbedder();
    const down = () => Promise.reject(new Error("PostgreSQL unavailable"));
    const broken: SemanticVectorStore = { get: down, put: down, drop: down, dropProject: down };
    const b = new SharedVectorSource(embed, broken, () => 1_000, (err) => errors.push(err));
    expect((await collect(b, [entry(400, "x one", false), entry(401, "x two", true)])).size).toBe(2);
    expect(embed.texts).toEqual(["x one", "x two"]);
    expect(errors).toHaveLength(1);
  });
});
