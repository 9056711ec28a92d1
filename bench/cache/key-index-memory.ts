// Memory of the cache's key index (src/cache/key-index.ts) per 100k live keys, against the plain
// Map<"project:key", {id, expiresAt}> it replaces, and the time to load it from SQLite at start.
// Run: bun run bench/cache/key-index-memory.ts [entries]   (docs/cache.md "Storage" quotes it)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteAnswerStore } from "../../src/cache/answer-store.ts";
import { KeyIndex } from "../../src/cache/key-index.ts";
import { sha256Hex } from "../../src/lib/hash.ts";
import { openDatabase } from "../../src/store/db.ts";
import { cacheEntriesRepo } from "../../src/store/repos/cache-entries.ts";

const N = Number(process.argv[2] ?? 100_000);
const PROJECTS = 10;
const project = (i: number) => `proj_01jd${String(i % PROJECTS).padStart(18, "0")}`;
// Keys are made once, outside the measurement: the pipeline's key strings are its own.
const keys = Array.from({ length: N }, (_, i) => sha256Hex(`question ${i}`));

function heapAfterGc(): number {
  Bun.gc(true);
  Bun.gc(true);
  return process.memoryUsage().heapUsed;
}

function measure(name: string, build: () => unknown): void {
  const before = heapAfterGc();
  const kept = build();
  const after = heapAfterGc();
  const per100k = ((after - before) / N) * 100_000;
  console.log(`${name.padEnd(40)} ${(per100k / 1024 / 1024).toFixed(2)} MiB per 100k keys (${((after - before) / N).toFixed(0)} B/key)`);
  if (kept === null) console.log("unreachable");
}

const expires = Date.now() + 86_400_000;
measure("KeyIndex, sized at load (reserve)", () => {
  const index = new KeyIndex();
  index.reserve(N);
  for (let i = 0; i < N; i++) index.set(project(i), keys[i]!, i + 1, expires);
  return index;
});
measure("KeyIndex, grown one key at a time", () => {
  const index = new KeyIndex();
  for (let i = 0; i < N; i++) index.set(project(i), keys[i]!, i + 1, expires);
  return index;
});
measure("Map<project:key, {id, expiresAt}> (naive)", () => {
  const map = new Map<string, { id: number; expiresAt: number }>();
  for (let i = 0; i < N; i++) map.set(`${project(i)}:${keys[i]!}`, { id: i + 1, expiresAt: expires });
  return map;
});

// Start-up: the store loads every live key with one query.
const dir = mkdtempSync(join(tmpdir(), "gw-bench-cache-"));
try {
  const db = openDatabase(dir);
  const insert = db.query("INSERT INTO cache_entries (id, project_id, key, partition, model, provider, body, usage, question, created_at, expires_at) VALUES (?, ?, ?, '', 'm', 'p', '{}', '{}', NULL, 0, ?)");
  db.transaction(() => { for (let i = 0; i < N; i++) insert.run(i + 1, project(i), keys[i]!, expires); })();
  const t0 = performance.now();
  const store = new SqliteAnswerStore(cacheEntriesRepo(db), { memoryBytes: 64 << 20, sweepIntervalMs: 0 });
  console.log(`load ${store.keys} keys from SQLite at start: ${(performance.now() - t0).toFixed(0)} ms`);
  const probes = Array.from({ length: N }, (_, i) => sha256Hex(`other ${i}`));
  const now = Date.now();
  const t1 = performance.now();
  let misses = 0;
  for (let i = 0; i < N; i++) if (store.get(project(i), probes[i]!, now) === null) misses++;
  console.log(`miss (key index only, no SQLite): ${(((performance.now() - t1) * 1e6) / N).toFixed(0)} ns per lookup (${misses} misses)`);
  store.close();
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
