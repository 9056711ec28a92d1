// The tenant mirror's reload applied in slices (docs/scale-out.md "Tenants"), on real PostgreSQL,
// Redis and SQLite: the end state is PostgreSQL's, the event loop turns meanwhile, revocations go
// first, and a row mirrored one by one during the reload is not undone by the older snapshot.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisClient } from "bun";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openRepos } from "../../src/deps.ts";
import { openDatabase } from "../../src/store/db.ts";
import type { Postgres } from "../../src/store/postgres/connect.ts";
import { postgresTenantRows, postgresTenantStores } from "../../src/store/postgres/tenant.ts";
import { redisTenantBus } from "../../src/store/redis/bus.ts";
import { identity, mirrorStatements } from "../../src/store/tenant-mirror-sql.ts";
import { TenantMirror } from "../../src/store/tenant-mirror.ts";
import { migratedPostgresForFile } from "../helpers/migrated-postgres.ts";
import { startRedis, type Service } from "../helpers/services.ts";

const PROJECTS = 300;
const KEYS = 6_000;

let pg: Postgres;
let redis: Service;
let clients: RedisClient[] = [];
let dir: string;
let db: Database;
let mirror: TenantMirror;
migratedPostgresForFile({ max: 4, timeoutMs: 30_000 }, (_service, pool) => {
  pg = pool;
});

beforeAll(async () => {
  redis = await startRedis();
  clients = [new RedisClient(redis.url), new RedisClient(redis.url)];
  await pg.sql`INSERT INTO projects (id, name, plan, billing_mode, policy, created_at)
    SELECT 'prj_' || lpad(i::text, 5, '0'), 'project ' || i, 'pro', 'prepaid', '{}', 1700000000000 + i FROM generate_series(1, ${PROJECTS}) i`;
  await pg.sql`INSERT INTO api_keys (id, project_id, name, key_hash, mode, scopes, created_at)
    SELECT 'key_' || lpad(i::text, 5, '0'), 'prj_' || lpad((1 + i % ${PROJECTS})::text, 5, '0'), 'key ' || i, md5('k' || i), 'live', '["chat"]', 1700000000000 + i
    FROM generate_series(1, ${KEYS}) i`;
  dir = mkdtempSync(join(tmpdir(), "gw-mirror-"));
  db = openDatabase(join(dir, "data"));
  const rows = postgresTenantRows(pg);
  mirror = new TenantMirror("gw_here", postgresTenantStores(pg), rows, redisTenantBus(clients[0]!, clients[1]!), await rows.snapshot(), (err) => {
    throw err;
  });
  mirror.attach(db, openRepos(db));
});
afterAll(async () => {
  await mirror?.stop();
  db?.close();
  for (const c of clients) c.close();
  await redis?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The columns both sides hold, as text, for comparing the mirror with PostgreSQL. */
async function inPostgres(): Promise<string[]> {
  const projects = await pg.sql`SELECT id, name, policy FROM projects ORDER BY id`;
  const keys = await pg.sql`SELECT id, project_id, name, revoked_at FROM api_keys ORDER BY id`;
  const providerKeys = await pg.sql`SELECT project_id, provider, sealed_key FROM provider_keys ORDER BY project_id, provider`;
  return [projects, keys, providerKeys].map((rows) => JSON.stringify(rows.map((r: Record<string, unknown>) => Object.values(r).map((v) => (v === null ? null : String(v))))));
}
function inMirror(): string[] {
  return ["SELECT id, name, policy FROM projects ORDER BY id", "SELECT id, project_id, name, revoked_at FROM api_keys ORDER BY id",
    "SELECT project_id, provider, sealed_key FROM provider_keys ORDER BY project_id, provider"]
    .map((q) => JSON.stringify(db.query(q).values().map((r) => r.map((v) => (v === null ? null : String(v))))));
}

/** Runs the reload while counting the event loop's turns (setImmediate) until it ends. */
async function reloadCountingTurns(): Promise<number> {
  let turns = 0;
  let on = true;
  const tick = () => {
    turns++;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  await mirror.reload();
  on = false;
  return turns;
}

test("a reload applied in slices makes the mirror PostgreSQL's again, the event loop turning meanwhile", async () => {
  await pg.sql`UPDATE api_keys SET name = 'renamed ' || id`;
  await pg.sql`UPDATE api_keys SET revoked_at = 1800000000000 WHERE id IN ('key_00010', 'key_03000', 'key_05990')`;
  await pg.sql`DELETE FROM api_keys WHERE id IN ('key_00020', 'key_04000')`;
  await pg.sql`INSERT INTO projects (id, name, plan, billing_mode, policy, created_at) VALUES ('prj_new', 'new', 'pro', 'prepaid', '{"cache":false}', 1)`;
  await pg.sql`INSERT INTO api_keys (id, project_id, name, key_hash, mode, scopes, created_at) VALUES ('key_new', 'prj_new', 'new', 'new-hash', 'test', '[]', 1)`;
  await pg.sql`INSERT INTO provider_keys (project_id, provider, sealed_key, updated_at) VALUES ('prj_new', 'openai', 'sealed', 1)`;
  await pg.sql`UPDATE projects SET policy = '{"cache":false}' WHERE id = 'prj_00007'`;
  // Rows only here (gone from PostgreSQL), and one missing here.
  db.run("INSERT INTO projects (id, name, plan, billing_mode, policy, created_at) VALUES ('prj_stray', 'stray', 'pro', 'postpaid', '{}', 1)");
  db.run("INSERT INTO api_keys (id, project_id, key_hash, mode, scopes, created_at) VALUES ('key_stray', 'prj_stray', 'stray-hash', 'live', '[]', 1)");
  db.run("INSERT INTO provider_keys (project_id, provider, sealed_key, updated_at) VALUES ('prj_00001', 'anthropic', 'stray', 1)");
  db.run("DELETE FROM api_keys WHERE id = 'key_00030'");
  expect(inMirror()).not.toEqual(await inPostgres());

  const turns = await reloadCountingTurns();
  expect(inMirror()).toEqual(await inPostgres());
  // 6,000 keys rewritten: the reload yielded to the event loop between its slices.
  expect(turns).toBeGreaterThan(3);
});

test("revocations found by a reload are written before any other row", async () => {
  // Caches are dropped after each slice that changed rows: at each, what the mirror holds.
  await pg.sql`UPDATE api_keys SET name = 'again ' || id`;
  await pg.sql`UPDATE api_keys SET revoked_at = 1800000000001 WHERE id IN ('key_00001', 'key_02500', 'key_06000')`;
  const seen: Array<{ revoked: number; renamed: number }> = [];
  mirror.onChange(() => {
    seen.push(db.query<{ revoked: number; renamed: number }, []>(`SELECT
      (SELECT count(*) FROM api_keys WHERE id IN ('key_00001', 'key_02500', 'key_06000') AND revoked_at IS NOT NULL) AS revoked,
      (SELECT count(*) FROM api_keys WHERE name LIKE 'again %') AS renamed`).get()!);
  });
  try {
    await mirror.reload();
  } finally {
    mirror.onChange(() => {});
  }
  expect(seen.length).toBeGreaterThan(1);
  // A revoked key is written whole (renamed too); no other key is renamed before all three are revoked.
  expect(seen[0]!.renamed).toBe(seen[0]!.revoked);
  for (const s of seen) expect(s.renamed <= s.revoked || s.revoked === 3).toBe(true);
  // Two keys were deleted in the first test and one was added.
  expect(seen.at(-1)).toEqual({ revoked: 3, renamed: KEYS - 1 });
  expect(inMirror()).toEqual(await inPostgres());
});

test("a row mirrored while a snapshot is applied is left as mirrored (the snapshot is older)", () => {
  const sql = mirrorStatements(db);
  const before = db.query<{ name: string; revoked_at: number | null }, [string]>("SELECT name, revoked_at FROM api_keys WHERE id = ?");
  // An older snapshot: every key named "older"; key_05000 is then revoked here, one by one, mid-sync.
  const older = {
    projects: openRepos(db).projects.list().map(({ balance: _, ...p }) => p),
    providerKeys: db.query<Record<string, unknown>, []>("SELECT * FROM provider_keys").all().map((r) => ({
      projectId: String(r.project_id), provider: String(r.provider), sealedKey: String(r.sealed_key), baseUrl: null, updatedAt: Number(r.updated_at),
    })),
    digest: "",
    keys: db.query<Record<string, unknown>, []>("SELECT * FROM api_keys ORDER BY id").all().map((r) => ({
      id: String(r.id), projectId: String(r.project_id), name: `older ${String(r.id)}`, keyHash: String(r.key_hash), mode: "live" as const,
      scopes: ["chat" as const], byok: false, ipAllowlist: null, createdAt: Number(r.created_at), revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
    })),
  };
  const touched = new Set<string>();
  const steps = sql.syncSlices(older, (id) => touched.has(id));
  let slices = 0;
  for (let r = steps.next(); !r.done; r = steps.next()) {
    if (++slices !== 2) continue;
    sql.key({ ...older.keys.find((o) => o.id === "key_05000")!, name: "newer", revokedAt: 1900000000000 });
    touched.add(identity.key("key_05000"));
  }
  expect(slices).toBeGreaterThan(2);
  expect(before.get("key_05000")).toEqual({ name: "newer", revoked_at: 1900000000000 });
  expect(before.get("key_04999")?.name).toBe("older key_04999");
});
