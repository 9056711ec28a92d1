// `bun bench/head-to-head.ts [REF]`: gw at REF (default: the commit before this branch's work,
// HEAD~1) against the working tree, on one scripted upstream, in interleaved wrk rounds: median
// req/s and CPU per request of each, and the ratio. REF is checked out into a temporary git
// worktree that shares node_modules; loopback only, bounded in time (BENCH_ROUNDS x BENCH_SECONDS).
import { existsSync, openSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { cpuSeconds } from "./lib/proc-stats.ts";
import { freePort, startUpstream, stopAll, tempDir, track, waitForHttp } from "./lib/processes.ts";
import { chatBody, settings } from "./lib/stack.ts";
import { fmt, median, ratio } from "./lib/stats.ts";
import { ensureTools, runWrk, type Target } from "./lib/wrk.ts";

const ref = process.argv[2] ?? "HEAD~1";
const root = resolve(import.meta.dir, "..");
const sha = Bun.spawnSync(["git", "rev-parse", "--short", ref], { cwd: root }).stdout.toString().trim();
if (!sha) throw new Error(`unknown git ref ${ref}`);

function worktree(): string {
  const dir = join(tmpdir(), `gw-h2h-${sha}`);
  if (!existsSync(dir)) {
    const out = Bun.spawnSync(["git", "worktree", "add", "--detach", dir, sha], { cwd: root });
    if (out.exitCode !== 0) throw new Error(`git worktree add failed: ${out.stderr.toString()}`);
    symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  }
  // The dashboard's bundle is generated, not committed: a ref that serves it needs it built.
  const build = join(dir, "scripts/build-dashboard.ts");
  if (existsSync(build) && !existsSync(join(dir, "src/dashboard/generated-assets.ts"))) {
    const out = Bun.spawnSync(["bun", build], { cwd: dir });
    if (out.exitCode !== 0) throw new Error(`dashboard build at ${sha} failed: ${out.stderr.toString()}`);
  }
  return dir;
}

function cli(cwd: string, dataDir: string, args: string[]): Record<string, unknown> {
  const out = Bun.spawnSync(["bun", "run", "src/main.ts", ...args, "--data", dataDir], { cwd, timeout: 30_000 });
  if (out.exitCode !== 0) throw new Error(`gw ${args.join(" ")} failed: ${out.stderr.toString()}`);
  return JSON.parse(out.stdout.toString()) as Record<string, unknown>;
}

async function startFrom(cwd: string, upstreamUrl: string): Promise<{ pid: number; target: Target }> {
  const dataDir = tempDir("gw-h2h-");
  const project = cli(cwd, dataDir, ["projects", "create", "--name", "bench"]);
  const live = cli(cwd, dataDir, ["keys", "create", "--project", String(project.id)]);
  const port = freePort();
  const proc = track(Bun.spawn(["bun", "run", "src/main.ts", "serve", "--port", String(port), "--data", dataDir], {
    cwd, stdout: openSync(join(dataDir, "gw.log"), "w"), stderr: "inherit",
    env: { ...process.env, OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: upstreamUrl, GW_LOG_LEVEL: "info" },
  }));
  await waitForHttp(`http://127.0.0.1:${port}/v1/models`);
  const headers = { "content-type": "application/json", authorization: `Bearer ${live.key}`, "x-gw-cache": "off" };
  return { pid: proc.pid, target: { url: `http://127.0.0.1:${port}/v1/chat/completions`, body: chatBody("gpt-4o-mini"), headers } };
}

ensureTools([{ bin: "wrk", pkg: "wrk" }]);
const before = worktree();
try {
  const upstream = await startUpstream({ delayMs: 0, chunkDelayMs: 0, words: 18 });
  const sides = [
    { name: `before (${sha})`, ...(await startFrom(before, upstream.url)), rps: [] as number[], cpu: [] as number[] },
    { name: "after (working tree)", ...(await startFrom(root, upstream.url)), rps: [] as number[], cpu: [] as number[] },
  ];
  const { rounds, seconds, connections, warmupSeconds } = settings;
  for (const s of sides) await runWrk(s.target, { seconds: warmupSeconds, connections });
  for (let round = 1; round <= rounds * 2; round++) {
    // A B, then B A: neither side always runs first in a round.
    for (const s of round % 2 ? sides : [...sides].reverse()) {
      const cpu0 = cpuSeconds(s.pid);
      const w = await runWrk(s.target, { seconds, connections });
      s.rps.push(w.rps);
      s.cpu.push(((cpuSeconds(s.pid) - cpu0) / w.requests) * 1e6);
      console.log(`round ${round} ${s.name}: ${w.rps.toFixed(0)} req/s, ${s.cpu.at(-1)!.toFixed(1)} µs CPU per request, errors ${w.errors}`);
    }
  }
  const [a, b] = sides as [(typeof sides)[number], (typeof sides)[number]];
  console.log(`\nhead to head, ${rounds * 2} interleaved rounds x ${seconds} s, wrk -c${connections}:`);
  console.log(`  ${a.name}: ${fmt(median(a.rps), 0)} req/s, ${fmt(median(a.cpu), 1)} µs CPU per request`);
  console.log(`  ${b.name}: ${fmt(median(b.rps), 0)} req/s, ${fmt(median(b.cpu), 1)} µs CPU per request`);
  console.log(`  after / before: ${ratio(median(b.rps), median(a.rps))} req/s`);
} finally {
  await stopAll();
  Bun.spawnSync(["git", "worktree", "remove", "--force", before], { cwd: root });
  rmSync(before, { recursive: true, force: true });
}
process.exit(0);
