// Memory of gw under many distinct semantic-cache scopes (issue 14, docs/semantic-cache.md "Memory"):
// starts `gw serve` on a fresh data directory, turns semantic_cache on for the default project
// through the admin API, sends N chat requests each with its own `user` (or X-Gw-Cache-Scope), and
// reports the server's RSS: idle, every 1,000 requests, at the end and after a quiet period, then
// what the index held (from the manifest a clean stop saves).
// Run: bun run bench/semantic-scopes.ts [--n 10000] [--by user|scope] [--embedder use|ngram]
//        [--concurrency 16] [--settle-s 60] [--root <source tree>] (--root: measure another checkout)
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "../src/config/env.ts";
import { rssMiB } from "./lib/proc-stats.ts";

const { flags } = parseArgs(process.argv.slice(2));
const opt = (name: string, fallback: string): string => (typeof flags[name] === "string" ? (flags[name] as string) : fallback);
const N = Number(opt("n", "10000"));
const BY = opt("by", "user");
const EMBEDDER = opt("embedder", "use");
const CONCURRENCY = Number(opt("concurrency", "16"));
const SETTLE_S = Number(opt("settle-s", "60"));
const ROOT = opt("root", join(import.meta.dir, ".."));
const ADMIN = "bench-admin-token-0123456789abcdef";

const dataDir = mkdtempSync(join(tmpdir(), "gw-bench-scopes-"));
const port = 20_000 + Math.floor(Math.random() * 20_000);
const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^GW_|_API_KEY$|_BASE_URL$/.test(k)) env[k] = v;
Object.assign(env, { GW_ADMIN_TOKEN: ADMIN, GW_SEMANTIC_EMBEDDER: EMBEDDER, GW_LOG_LEVEL: "warn" });
const gw = Bun.spawn(["bun", "run", "src/main.ts", "serve", "--port", String(port), "--data", dataDir], { cwd: ROOT, env, stdout: "pipe", stderr: "inherit" });
const base = `http://127.0.0.1:${port}/v1`;

async function firstRunKey(): Promise<{ key: string; project: string }> {
  let out = "";
  const decoder = new TextDecoder();
  for await (const chunk of gw.stdout) {
    out += decoder.decode(chunk, { stream: true });
    const key = out.match(/gw_test_[0-9a-z]{40}/)?.[0];
    const project = out.match(/default \((prj_[0-9a-z]+)\)/)?.[1];
    if (key && project) return { key, project };
  }
  throw new Error(`gw exited before printing its first key:\n${out}`);
}

async function chat(key: string, i: number): Promise<number> {
  const res = await fetch(`${base}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...(BY === "scope" ? { "x-gw-cache-scope": `scope-${i}` } : {}) },
    body: JSON.stringify({ model: "gw-auto", messages: [{ role: "user", content: `How do I configure the build cache for project ${i % 50}?` }], ...(BY === "user" ? { user: `end-user-${i}` } : {}) }),
  });
  await res.arrayBuffer();
  return res.status;
}

const mib = (): string => rssMiB(gw.pid).toFixed(0);

try {
  const { key, project } = await firstRunKey();
  for (let i = 0; ; i++) {
    const ok = await fetch(`${base}/models`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.ok, () => false);
    if (ok) break;
    if (i > 400) throw new Error("gw did not start serving");
    await Bun.sleep(50);
  }
  const patch = await fetch(`${base}/admin/projects/${project}`, {
    method: "PATCH", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify({ policy: { semantic_cache: true } }),
  });
  if (!patch.ok) throw new Error(`admin PATCH answered ${patch.status}`);
  // Warm-up: the embedder loads on first use; idle is measured after it.
  for (let i = 0; i < 20; i++) await chat(key, N + i);
  console.log(`gw ${ROOT} embedder=${EMBEDDER} by=${BY} n=${N} concurrency=${CONCURRENCY}`);
  console.log(`idle (after warm-up): ${mib()} MiB`);
  const started = performance.now();
  let next = 0;
  let peak = 0;
  const statuses = new Map<number, number>();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < N) {
      const i = next++;
      const status = await chat(key, i);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if ((i + 1) % 1000 === 0) {
        const now = rssMiB(gw.pid);
        peak = Math.max(peak, now);
        console.log(`${String(i + 1).padStart(6)} requests: ${now.toFixed(0)} MiB`);
      }
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  console.log(`done in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries(statuses))}; end ${mib()} MiB; peak sampled ${peak.toFixed(0)} MiB`);
  if (SETTLE_S > 0) {
    await Bun.sleep(SETTLE_S * 1000);
    console.log(`after ${SETTLE_S} s quiet: ${mib()} MiB`);
  }
  gw.kill("SIGTERM");
  await gw.exited;
  // What the index held, from the manifest the clean stop saved (version 1 had only graphs).
  const manifest = JSON.parse(readFileSync(join(dataDir, "semantic-index", "manifest.json"), "utf8")) as {
    partitions: Array<{ kind?: string; ids?: number[]; live?: number[] }>;
  };
  const entries = manifest.partitions.reduce((n, p) => n + (p.ids ?? p.live ?? []).length, 0);
  const graphs = manifest.partitions.filter((p) => p.kind !== "flat").length;
  console.log(`index saved at stop: ${manifest.partitions.length} partitions (${graphs} graphs), ${entries} entries`);
} finally {
  gw.kill("SIGKILL");
  await gw.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
