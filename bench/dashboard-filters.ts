// The Requests page's filters on a 1,000,000-row log (docs/dashboard.md "Request log"): seeds a temp
// data directory through the real insert path, then times every single filter and pair (and some
// triples) through the real handler (app.handle, operator session), printing p50/p95/max.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject } from "../src/admin/projects.ts";
import { loadConfig } from "../src/config/env.ts";
import { buildDeps, closeStorage } from "../src/deps.ts";
import { createApp } from "../src/http/app.ts";
import { requestIdAt } from "../src/lib/ids.ts";
import { createLogger } from "../src/observability/logger.ts";
import type { Deps } from "../src/pipeline/deps.ts";
import { prepareRow } from "../src/store/log-batch-codec.ts";
import type { RequestRecord } from "../src/store/repos/requests.ts";
import { idAt, prng } from "./observability/rows.ts";
import { percentileSorted } from "./lib/stats.ts";

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const CALLS = Number(process.env.BENCH_CALLS ?? 30);
const DAY = 86_400_000;
const PROVIDERS = ["openai", "anthropic", "google", "deepseek", "groq"];
/** 20 models over the 5 providers; weights fall off so the last few are rare (0.2-1%). */
const MODELS = Array.from({ length: 20 }, (_, i) => ({ id: `${PROVIDERS[i % 5]}/model-${i}`, weight: 30 / (i + 1) ** 1.3 }));
const TASKS = [["chat", 40], ["coding", 20], ["summarization", 15], ["extraction", 12], ["classification", 10], ["reasoning", 2.6], ["translation", 0.4]] as const;
const FAILURES = [[429, "RATE_LIMIT", 18], [502, "UPSTREAM_ERROR", 12], [400, "VALIDATION_FAILED", 12], [404, "MODEL_NOT_FOUND", 4], [504, "TIMEOUT", 3], [503, "PROVIDER_UNAVAILABLE", 1]] as const;
const ADMIN_TOKEN = "bench-admin-token-0123456789abcdef";

function weighted<T>(items: readonly T[], weightOf: (t: T) => number, r: number): T {
  let x = r * items.reduce((n, t) => n + weightOf(t), 0);
  for (const t of items) if ((x -= weightOf(t)) < 0) return t;
  return items[items.length - 1]!;
}

function* rows(project: string, count: number, from: number, to: number): Generator<RequestRecord> {
  const rand = prng(17);
  const step = (to - from) / count;
  let trace = "";
  let traceLeft = 0;
  for (let i = 0; i < count; i++) {
    const createdAt = Math.floor(from + i * step);
    const id = `req_${idAt(createdAt, i, rand)}`;
    const model = weighted(MODELS, (m) => m.weight, rand()).id;
    const f = rand() * 1000;
    let acc = 0;
    const failure = FAILURES.find((x) => (acc += x[2]) > f);
    const c = rand();
    if (traceLeft === 0 && rand() < 0.1) (trace = `trc_${idAt(createdAt, i, rand)}`), (traceLeft = 3);
    const tags: string[] = [];
    const t = rand();
    if (t < 0.15) tags.push("batch");
    if (t > 0.9) tags.push("eval");
    if (rand() < 0.02) tags.push(`customer-${Math.floor(rand() * 200)}`);
    yield {
      id, projectId: rand() < 0.95 ? project : "prj_bench_other", keyId: "key_bench", traceId: traceLeft > 0 ? (traceLeft--, trace) : `trc_${id.slice(4)}`,
      createdAt, endpoint: "chat.completions", requestedModel: "gw-auto", selectedModel: model, provider: model.split("/")[0]!,
      task: weighted(TASKS, (x) => x[1], rand())[0], taskSubtype: "general", inputTokens: 300, outputTokens: 200, cost: 0.001, saved: 0,
      cache: failure ? null : c < 0.04 ? "exact" : c < 0.06 ? "semantic" : null, status: failure ? failure[0] : 200,
      errorCode: failure ? "bench" : null, errorMessage: failure ? "bench failure" : null, errorCategory: failure ? failure[1] : null,
      latencyMs: 500, ttftMs: null, overheadMs: 0.8, fallbacks: 0, workflowId: rand() < 0.3 ? `wf_${Math.floor(rand() * 2000)}` : null,
      step: null, tags, stream: false, test: rand() < 0.03, trace: null,
    };
  }
}

/** Seeds (or reuses, BENCH_DIR) a data directory; rows carry no traces: no filter reads them. */
function seed(deps: Deps, dir: string, now: number): { project: string; now: number } {
  const marker = join(dir, "seeded.json");
  if (existsSync(marker)) return JSON.parse(readFileSync(marker, "utf8")) as { project: string; now: number };
  const project = createProject(deps.repos.projects, { name: "bench" }).id;
  const t0 = performance.now();
  let batch: RequestRecord[] = [];
  for (const r of rows(project, ROWS, now - 30 * DAY, now)) {
    batch.push(r);
    if (batch.length === 2048) (deps.repos.requests.insertPrepared(batch.map(prepareRow)), (batch = []));
  }
  if (batch.length) deps.repos.requests.insertPrepared(batch.map(prepareRow));
  deps.db.run("PRAGMA wal_checkpoint(TRUNCATE)");
  console.error(`seeded ${ROWS} rows in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  writeFileSync(marker, JSON.stringify({ project, now }));
  return { project, now };
}

/** Each filter with a value generator: common and rare values of the same param are separate. */
function filterSet(deps: Deps, project: string, now: number) {
  const sample = (sql: string) => deps.db.query<{ v: string }, []>(sql).all().map((r) => r.v);
  const workflows = sample(`SELECT DISTINCT workflow_id v FROM requests WHERE project_id = '${project}' AND workflow_id IS NOT NULL LIMIT 200`);
  const traces = sample(`SELECT trace_id v FROM requests WHERE project_id = '${project}' AND trace_id LIKE 'trc_%' ORDER BY id DESC LIMIT 200 OFFSET 5000`);
  const pick = (xs: string[]) => (r: () => number) => xs[Math.floor(r() * xs.length)]!;
  const fixed = (v: string) => () => v;
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    "model=common": ["model", fixed(MODELS[0]!.id)], "model=rare": ["model", fixed(MODELS[19]!.id)],
    "status=200": ["status", fixed("200")], "status=429": ["status", fixed("429")], "status=503": ["status", fixed("503")],
    workflow_id: ["workflow_id", pick(workflows)], trace_id: ["trace_id", pick(traces)],
    "provider=common": ["provider", fixed("openai")], "provider=rare": ["provider", fixed("groq")],
    "cache=exact": ["cache", fixed("exact")], "cache=semantic": ["cache", fixed("semantic")], "cache=miss": ["cache", fixed("miss")],
    "error_category=common": ["error_category", fixed("RATE_LIMIT")], "error_category=rare": ["error_category", fixed("PROVIDER_UNAVAILABLE")],
    "tag=common": ["tag", fixed("batch")], "tag=rare": ["tag", (r) => `customer-${Math.floor(r() * 200)}`],
    "task=common": ["task", fixed("chat")], "task=rare": ["task", fixed("translation")],
    "test=true": ["test", fixed("true")], "test=false": ["test", fixed("false")],
    "from=last 24h": ["from", fixed(iso(now - DAY))], "to=12h ago": ["to", fixed(iso(now - DAY / 2))],
  } satisfies Record<string, [string, (r: () => number) => string]>;
}

async function main() {
  const dir = process.env.BENCH_DIR ?? mkdtempSync(join(tmpdir(), "gw-bench-filters-"));
  const deps = buildDeps(loadConfig({ port: "0", data: dir }, { GW_ADMIN_TOKEN: ADMIN_TOKEN }), { logger: createLogger("silent") });
  const { project, now } = seed(deps, dir, Date.now());
  const app = createApp(deps);
  const signIn = await app.handle(new Request("http://localhost/dashboard/api/session", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: ADMIN_TOKEN }),
  }));
  const cookie = signIn.headers.get("set-cookie")?.split(";")[0] ?? "";
  const filters = filterSet(deps, project, now);
  const names = Object.keys(filters) as (keyof typeof filters)[];
  const combos: string[][] = names.map((n) => [n]);
  for (let i = 0; i < names.length; i++)
    for (let j = i + 1; j < names.length; j++) if (filters[names[i]!][0] !== filters[names[j]!][0]) combos.push([names[i]!, names[j]!]);
  combos.push(["model=rare", "status=200", "cache=miss"], ["test=true", "task=rare", "tag=common"], ["status=200", "cache=miss", "test=false", "task=common", "provider=common"]);
  combos.push([]);
  const rand = prng(99);
  const all: number[] = [];
  const allCpu: number[] = [];
  const report: { combo: string; p50: number; p95: number; max: number; cpu95: number; rows: number }[] = [];
  for (const combo of combos) {
    const times: number[] = [];
    const cpus: number[] = [];
    let returned = 0;
    for (let call = 0; call < CALLS; call++) {
      const query: Record<string, string> = { project, limit: "50" };
      for (const n of combo) query[filters[n as keyof typeof filters][0]] = filters[n as keyof typeof filters][1](rand);
      // Half the calls are first pages, half continue from a random point of the 30 days.
      if (call % 2 === 1) query.after = requestIdAt(now - Math.floor(rand() * 30 * DAY));
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const res = await app.handle(new Request(`http://localhost/dashboard/api/requests?${new URLSearchParams(query)}`, { headers: { cookie } }));
      const page = (await res.json()) as { data: unknown[] };
      times.push(performance.now() - t0);
      const cpu = process.cpuUsage(c0);
      cpus.push((cpu.user + cpu.system) / 1000);
      if (res.status !== 200) throw new Error(`${res.status} for ${JSON.stringify(query)}: ${JSON.stringify(page)}`);
      returned += page.data.length;
    }
    all.push(...times);
    allCpu.push(...cpus);
    const s = times.sort((a, b) => a - b);
    const cpu95 = percentileSorted(cpus.sort((a, b) => a - b), 95);
    report.push({ combo: combo.join(" & ") || "(none)", p50: percentileSorted(s, 50), p95: percentileSorted(s, 95), max: s[s.length - 1]!, cpu95, rows: returned / CALLS });
  }
  const f = (x: number) => x.toFixed(2).padStart(7);
  // CPU time beside wall time: on a shared host the wall time includes waiting for a core.
  console.log(`| filters | p50 ms | p95 ms | max ms | p95 CPU ms | rows/page |\n| --- | --- | --- | --- | --- | --- |`);
  for (const r of report) console.log(`| ${r.combo} | ${f(r.p50)} | ${f(r.p95)} | ${f(r.max)} | ${f(r.cpu95)} | ${r.rows.toFixed(1)} |`);
  const s = all.sort((a, b) => a - b);
  const worst = [...report].sort((a, b) => b.p95 - a.p95)[0]!;
  console.log(`\n${combos.length} combinations x ${CALLS} calls on ${ROWS} rows: overall p50 ${f(percentileSorted(s, 50))} ms, p95 ${f(percentileSorted(s, 95))} ms, max ${f(s[s.length - 1]!)} ms (CPU p95 ${f(percentileSorted(allCpu.sort((a, b) => a - b), 95))} ms); worst p95 ${worst.combo} ${f(worst.p95)} ms; ${report.filter((r) => r.p95 >= 50).length} combinations at p95 >= 50 ms`);
  await closeStorage(deps);
  if (!process.env.BENCH_DIR) rmSync(dir, { recursive: true, force: true });
}

await main();
process.exit(0);
