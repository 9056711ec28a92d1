// The semantic cache's shared entries on PostgreSQL (docs/scale-out.md "Semantic cache"): each stored
// answer's question vector with its metadata (migration 014), written by the instance that embedded
// it, read by the others when the Redis stream names the answer, so no question is embedded twice.
import { bounded, type Postgres } from "./connect.ts";

export interface SemanticVectorRow {
  /** The answer's id in the Redis answer store. */
  id: number;
  project: string;
  partition: string;
  vector: Float32Array;
  expires: number;
}

export interface SemanticVectorStore {
  /** Stores (or replaces) the rows' vectors under `embedder`; rejects when PostgreSQL fails. */
  put(embedder: string, rows: readonly SemanticVectorRow[], now: number): Promise<void>;
  /** The vectors of `ids` stored under `embedder` with `dimensions` floats; ids missing are absent. */
  get(embedder: string, dimensions: number, ids: readonly number[]): Promise<Map<number, Float32Array>>;
  drop(ids: readonly number[]): Promise<void>;
  dropProject(projectId: string): Promise<void>;
}

/** Bytes of the vector as stored: float32, the platform's (little-endian) order. */
const bytesOf = (v: Float32Array): Uint8Array => new Uint8Array(v.buffer, v.byteOffset, v.byteLength);

/** A stored vector back, or null when its length is not `dimensions` floats (another model's). */
function vectorOf(bytes: Uint8Array, dimensions: number): Float32Array | null {
  if (bytes.byteLength !== dimensions * 4) return null;
  // Copied: the driver's buffer may not be 4-byte aligned.
  return new Float32Array(bytes.slice().buffer);
}

export function postgresSemanticVectors(pg: Postgres): SemanticVectorStore {
  const { sql } = pg;
  return {
    put: (embedder, rows, now) => bounded(pg, "semantic vectors", async () => {
      if (rows.length === 0) return;
      await sql`INSERT INTO semantic_vectors ${sql(rows.map((r) => ({
        id: r.id, project_id: r.project, partition: r.partition, embedder, vector: bytesOf(r.vector),
        created_at: Math.floor(now), expires_at: Math.floor(Math.min(r.expires, Number.MAX_SAFE_INTEGER)),
      })))}
        ON CONFLICT (id) DO UPDATE SET project_id = EXCLUDED.project_id, partition = EXCLUDED.partition, embedder = EXCLUDED.embedder,
          vector = EXCLUDED.vector, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at`;
    }),
    get: (embedder, dimensions, ids) => bounded(pg, "semantic vectors", async () => {
      const found = new Map<number, Float32Array>();
      if (ids.length === 0) return found;
      const rows: Array<{ id: string | number; vector: Uint8Array }> =
        await sql`SELECT id, vector FROM semantic_vectors WHERE id = ANY(${sql.array([...ids], "INT8")}) AND embedder = ${embedder}`;
      for (const r of rows) {
        const v = vectorOf(r.vector, dimensions);
        if (v) found.set(Number(r.id), v);
      }
      return found;
    }),
    drop: (ids) => bounded(pg, "semantic vectors", async () => {
      if (ids.length > 0) await sql`DELETE FROM semantic_vectors WHERE id = ANY(${sql.array([...ids], "INT8")})`;
    }),
    dropProject: (projectId) => bounded(pg, "semantic vectors", async () => {
      await sql`DELETE FROM semantic_vectors WHERE project_id = ${projectId}`;
    }),
  };
}
