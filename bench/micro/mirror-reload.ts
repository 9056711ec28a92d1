// `bun bench/micro/mirror-reload.ts`: the tenant mirror's reload at 20,000 keys and 1,000 projects
// (docs/scale-out.md "Tenants"): the longest event-loop block (the widest gap of a setImmediate
// ticker) and the wall time of a reload after one revoke, and after every key changed. Knob: BENCH_KEYS.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openRepos } from "../../src/deps.ts";
import { openDatabase } from "../../src/store/db.ts";
import { openPostgres } from "../../src/store/postgres/connect.ts";
import { migratePostgres } from "../../src/store/postgres/migrate.ts";
import { postgresTenantRows, postgresTenantStores } from "../../src/store/postgres/tenant.ts";
import type { TenantBus } from "../../src/store/redis/bus.ts";
import { TenantMirror } from "../../src/store/tenant-mirror.ts";
import { startPostgres } from "../../test/helpers/services.ts";
import { envNumber, fmt } from "../lib/stats.ts";

const KEYS = envNumber("BENCH_KEYS", 20_000);
const PROJECTS = Math.max(1, Math.round(KEYS / 20));

const quietBus: TenantBus = { publish: async () => {}, subscribe: async () => {}, unsubscribe: async () => {}, listening: () => true };

interface Blocked { maxGapMs: number; maxGapCpuMs: number; wallMs: number; seenMs: number }

/** Runs `op` while a setImmediate ticker records the widest gap between its turns, in wall time and
 * in the process's CPU time (on a loaded machine a wall gap may be another process's turn). */
async function blocked(op: () => Promise<unknown>, seen?: () => boolean): Promise<Blocked> {
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let maxGapMs = 0;
  let maxGapCpuMs = 0;
  let on = true;
  let seenMs = Number.NaN;
  const t = performance.now();
  const tick = () => {
    if (seen && Number.isNaN(seenMs) && seen()) seenMs = performance.now() - t;
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    maxGapMs = Math.max(maxGapMs, now - last);
    maxGapCpuMs = Math.max(maxGapCpuMs, (cpu.user + cpu.system) / 1000);
    last = now;
    lastCpu = process.cpuUsage();
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  await op();
  const wallMs = performance.now() - t;
  // One more turn of the ticker: a block at the very end of `op` is measured by the next tick.
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  on = false;
  return { maxGapMs, maxGapCpuMs, wallMs, seenMs };
}

const service = await startPostgres();
const pg = openPostgres(service.url, { max: 4, timeoutMs: 60_000 });
const dir = mkdtempSync(join(tmpdir(), "gw-mirror-bench-"));
try {
  await migratePostgres(pg.sql);
  await pg.sql`INSERT INTO projects (id, name, plan, billing_mode, policy, created_at)
    SELECT 'prj_' || i, 'project ' || i, 'pro', 'prepaid', '{"cache":false}', 1700000000000 + i FROM generate_series(1, ${PROJECTS}) i`;
  await pg.sql`INSERT INTO api_keys (id, project_id, name, key_hash, mode, scopes, created_at)
    SELECT 'key_' || i, 'prj_' || (1 + i % ${PROJECTS}), 'key ' || i, md5('k' || i), 'live', '["chat","embeddings","models"]', 1700000000000 + i
    FROM generate_series(1, ${KEYS}) i`;
  const rows = postgresTenantRows(pg);
  const db = openDatabase(join(dir, "data"));
  const mirror = new TenantMirror("gw_bench", postgresTenantStores(pg), rows, quietBus, await rows.snapshot(), (err) => console.error(err));
  mirror.attach(db, openRepos(db));
  const report = (label: string, r: Blocked) =>
    console.log(`${label.padEnd(32)} longest block ${fmt(r.maxGapMs, 1)} ms (CPU ${fmt(r.maxGapCpuMs, 1)} ms)  reload ${fmt(r.wallMs, 1)} ms${Number.isNaN(r.seenMs) ? "" : `  revoke applied at ${fmt(r.seenMs, 1)} ms`}`);
  const revokedAt = db.query<{ revoked_at: number | null }, [string]>("SELECT revoked_at FROM api_keys WHERE id = ?");
  for (let round = 0; round < 3; round++) {
    report("nothing changed (digest only)", await blocked(() => mirror.reload()));
    await pg.sql`UPDATE api_keys SET revoked_at = ${Date.now()} WHERE id = ${`key_${1 + round}`}`;
    const revokedHere = () => (revokedAt.get(`key_${1 + round}`)?.revoked_at ?? null) !== null;
    report("one key revoked", await blocked(() => mirror.reload(), revokedHere));
    await pg.sql`UPDATE api_keys SET name = 'renamed ' || id || ${round}`;
    report(`every key renamed (${KEYS})`, await blocked(() => mirror.reload()));
  }
  const revoked = db.query("SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NOT NULL").get() as { n: number };
  console.log(`mirror: ${revoked.n} revoked keys (want 3)`);
  db.close();
} finally {
  await pg.close();
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
}
