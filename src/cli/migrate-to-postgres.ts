// `gw migrate-to-postgres` (docs/scale-out.md): copies a stopped single-node data directory into an
// empty PostgreSQL in one transaction, so a failure leaves nothing half-copied.
import { SQL } from "bun";
import type { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Flags } from "../config/env.ts";
import { parseDatabaseUrl, parseRedisUrl, redactUrl } from "../config/scale-out.ts";
import { loadSecretKey, SECRET_KEY_FILE, secretBox, type SecretBox } from "../lib/secret-box.ts";
import { DataDirInUse, lockDataDir, type DataDirLock } from "../store/data-dir-lock.ts";
import { DB_FILE, openDatabase } from "../store/db.ts";
import { migratePostgres } from "../store/postgres/migrate.ts";
import { ensurePartitions } from "../store/postgres/partitions.ts";
import { copyLog, copyMoney, copyResults, copyTenants, logDays, type Reseal } from "./migrate-copy.ts";
import { copyMonitoring } from "./migrate-monitoring.ts";
import { seedIdempotency } from "./migrate-redis.ts";

/** pg_advisory_xact_lock key of the copy ("gw" and 4): two runs at once copy once, the other refuses. */
const COPY_LOCK = 0x67770004;

export interface MigrateOptions {
  dataDir: string;
  databaseUrl: string;
  /** What every instance will run with: provider keys and SSO secrets must open with it. */
  secretKey: string;
  skipLog: boolean;
  /** Where the instances keep idempotency results; null: they are copied to PostgreSQL only. */
  redisUrl: string | null;
  now: number;
}

export interface MigrationReport {
  object: "migration";
  data_dir: string;
  database: string;
  copied: Record<string, number>;
  /** Secrets sealed with the data directory's secret.key, sealed again with GW_SECRET_KEY. */
  resealed: number;
  log_skipped: boolean;
  /** Idempotency results put in Redis (null without GW_REDIS_URL or when Redis failed: see warnings). */
  idempotency_in_redis: number | null;
  warnings: string[];
  next: string;
}

/** Opens sealed text with GW_SECRET_KEY, or else with the data directory's secret.key and seals
 * it again with GW_SECRET_KEY (a key file's bytes are not a GW_SECRET_KEY value: that is hashed). */
function resealer(dataDir: string, secretKey: string): { reseal: Reseal; count: () => number } {
  const target = secretBox(loadSecretKey(dataDir, secretKey));
  const file = join(dataDir, SECRET_KEY_FILE);
  const source: SecretBox | null = existsSync(file) ? secretBox(loadSecretKey(dataDir, null)) : null;
  const opens = (box: SecretBox | null, sealed: string): string | null => {
    try {
      return box ? box.open(sealed) : null;
    } catch {
      return null;
    }
  };
  let count = 0;
  const reseal: Reseal = (sealed, what) => {
    if (opens(target, sealed) !== null) return sealed;
    const plain = opens(source, sealed);
    if (plain === null) throw new Error(`${what} opens with neither GW_SECRET_KEY nor ${file}: set GW_SECRET_KEY to the value this data directory's gw ran with. Nothing was copied.`);
    count++;
    return target.seal(plain);
  };
  return { reseal, count: () => count };
}

/** Refuses a database that already holds a project, a ledger row or a log row. */
async function refuseIfNotEmpty(q: SQL): Promise<void> {
  const [row] = await q`SELECT (SELECT count(*) FROM projects)::int AS projects,
    EXISTS (SELECT 1 FROM ledger) OR EXISTS (SELECT 1 FROM requests) AS other`;
  if (Number(row?.projects ?? 0) === 0 && !row?.other) return;
  throw new Error(`The PostgreSQL database already holds ${row?.projects ? `${row.projects} project(s)` : "ledger or request-log rows"}: ` +
    "gw migrate-to-postgres copies into an empty database only, and nothing was changed. To start over, drop and create the database " +
    "(dropdb and createdb, or DROP DATABASE and CREATE DATABASE) and run it again.");
}

/** The message to print: connection errors may quote the URL; a constraint names the row. */
function failure(err: unknown): string {
  if (!(err instanceof SQL.PostgresError)) return redactUrl(err instanceof Error ? err.message : String(err));
  const detail = (err as { detail?: unknown }).detail;
  const what = `${redactUrl(err.message)}${typeof detail === "string" ? ` (${detail})` : ""}`;
  return /^23/.test(err.errno ?? "") ? `PostgreSQL refused a row of the copy: ${what}. Nothing was copied.` : what;
}

const target = (url: string): string => {
  const u = new URL(url);
  return `${u.hostname}:${u.port || "5432"}${u.pathname}`;
};

async function copyAll(db: Database, sql: SQL, o: MigrateOptions, reseal: Reseal): Promise<Record<string, number>> {
  // One snapshot of SQLite for every read (an offline `gw credits add` meanwhile is either all in or not).
  db.run("BEGIN");
  try {
    // Empty partitions are harmless if the copy rolls back; rows for a day without one are refused.
    if (!o.skipLog) for (const day of logDays(db)) await ensurePartitions(sql, day, 0);
    return await sql.begin(async (tx: SQL) => {
      await tx`SELECT pg_advisory_xact_lock(${COPY_LOCK})`;
      await refuseIfNotEmpty(tx);
      return {
        ...(await copyTenants(db, tx, reseal)),
        ...(await copyMoney(db, tx, o.now)),
        ...(await copyResults(db, tx, o.now)),
        ...(await copyMonitoring(db, tx, reseal)),
        ...(o.skipLog ? {} : await copyLog(db, tx, (n) => process.stderr.write(`gw: ${n} request-log rows copied so far\n`))),
      };
    });
  } finally {
    db.run("ROLLBACK");
  }
}

/** After the copy committed: a Redis failure is a warning, not a failure (PostgreSQL has them all). */
async function seedRedis(db: Database, o: MigrateOptions, results: number): Promise<{ seeded: number | null; warnings: string[] }> {
  const lost = "replays of requests made before the move will run again (the multi-instance mode reads idempotency results from Redis)";
  if (o.redisUrl === null) return { seeded: null, warnings: results > 0 ? [`GW_REDIS_URL is not set: the idempotency results went to PostgreSQL only, and ${lost}.`] : [] };
  try {
    return { seeded: await seedIdempotency(db, o.redisUrl, o.now), warnings: [] };
  } catch (err) {
    return { seeded: null, warnings: [`The idempotency results were not put in Redis (${redactUrl(err instanceof Error ? err.message : String(err))}): ${lost}.`] };
  }
}

export async function migrateToPostgres(o: MigrateOptions): Promise<MigrationReport> {
  const file = join(o.dataDir, DB_FILE);
  if (!existsSync(file)) throw new Error(`No database at ${file}: nothing to migrate (is --data or GW_DATA_DIR right?).`);
  // Held to the end: a gw serving this directory is refused, and none can start on it meanwhile.
  let lock: DataDirLock;
  try {
    lock = lockDataDir(o.dataDir);
  } catch (err) {
    if (!(err instanceof DataDirInUse)) throw err;
    throw new Error(`A gw server${err.holderPid ? ` (pid ${err.holderPid})` : ""} holds ${o.dataDir}: stop it first; the copy is made from a stopped data directory. Nothing was changed.`);
  }
  try {
    const db = openDatabase(o.dataDir);
    const sql = new SQL({ url: o.databaseUrl, max: 2, connectionTimeout: 10, connection: { application_name: "gw migrate-to-postgres" } });
    try {
      const { reseal, count } = resealer(o.dataDir, o.secretKey);
      await migratePostgres(sql).catch((err: unknown) => {
        throw new Error(`PostgreSQL at ${target(o.databaseUrl)} cannot be used: ${failure(err)}`);
      });
      await refuseIfNotEmpty(sql);
      const copied = await copyAll(db, sql, o, reseal);
      const { seeded, warnings } = await seedRedis(db, o, copied.idempotency_keys ?? 0);
      return {
        object: "migration", data_dir: o.dataDir, database: target(o.databaseUrl), copied, resealed: count(), log_skipped: o.skipLog,
        idempotency_in_redis: seeded, warnings,
        next: "Start every instance with GW_DATABASE_URL, GW_REDIS_URL and this GW_SECRET_KEY (docs/scale-out.md). This data directory is unchanged; keep it as a backup and serve no more from it.",
      };
    } catch (err) {
      throw new Error(failure(err));
    } finally {
      await sql.close({ timeout: 1 });
      db.close();
    }
  } finally {
    lock.release();
  }
}

/** The command: GW_DATABASE_URL and GW_SECRET_KEY from the environment; GW_REDIS_URL optional. */
export async function runMigrateToPostgres(flags: Flags, env: Record<string, string | undefined> = process.env): Promise<MigrationReport> {
  const databaseUrl = parseDatabaseUrl(env.GW_DATABASE_URL);
  if (databaseUrl === null) throw new Error("GW_DATABASE_URL is not set: set it to the PostgreSQL database to copy into, e.g. postgres://gw:PASSWORD@db.internal:5432/gw.");
  const secretKey = env.GW_SECRET_KEY;
  if (!secretKey) {
    throw new Error("GW_SECRET_KEY is not set: set it to the value every instance will run with (the multi-instance mode needs it); provider keys and SSO secrets are copied sealed with it.");
  }
  const dataDir = resolve(typeof flags.data === "string" ? flags.data : env.GW_DATA_DIR || "./data");
  const redisUrl = parseRedisUrl(env.GW_REDIS_URL);
  return migrateToPostgres({ dataDir, databaseUrl, secretKey, redisUrl, skipLog: flags["skip-log"] === true, now: Date.now() });
}
