// `bun bench/profile.ts [OUT.md]`: a CPU profile of gw's request thread under the throughput load (a
// live key on a project with rate limits set, varied prompts so the cache never hits, wrk -c16),
// taken with `bun --cpu-prof`; keeps the .cpuprofile in PROFILE_DIR and prints or writes its summary.
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { summarise } from "./lib/cpu-profile.ts";
import { cpuSeconds, mainThreadCpuSeconds } from "./lib/proc-stats.ts";
import { limitedProjectKey, startGw, startUpstream, stop, stopAll } from "./lib/processes.ts";
import { chatBody, settings } from "./lib/stack.ts";
import { envNumber } from "./lib/stats.ts";
import { ensureTools, runWrk } from "./lib/wrk.ts";

const out = process.argv[2];
const dir = process.env.PROFILE_DIR ?? "/tmp/gw-profile";
const seconds = envNumber("PROFILE_SECONDS", 20);
/** `gw-auto` makes routing score the catalog; the default names the model, as the throughput scenario does. */
const model = process.env.PROFILE_MODEL ?? "openai/gpt-4o-mini";
/** `PROFILE_KEY=test` profiles test mode (scenario (f): a test key, answers simulated in gw). */
const name = `gw-${new Date().toISOString().replace(/[:.]/g, "-")}.cpuprofile`;
mkdirSync(dir, { recursive: true });
ensureTools([{ bin: "wrk", pkg: "wrk" }]);
const commit = Bun.spawnSync(["git", "log", "-1", "--format=%h %s"]).stdout.toString().trim();
const dirty = Bun.spawnSync(["git", "status", "--porcelain", "--untracked-files=no", "src"]).stdout.toString().trim() !== "";
try {
  const upstream = await startUpstream({ delayMs: 0, chunkDelayMs: 0, words: 18 });
  const gw = await startGw(upstream.url, { bunArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}`] });
  await gw.patchProject({ policy: { rate_limits: { rpm: 100_000_000, tpm: 100_000_000_000 } } });
  // PROFILE_LIMITED=1: scenario (b)'s project (rate limits, prepaid credit, budgets) and its key.
  let key = process.env.PROFILE_KEY === "test" ? gw.testKey : gw.liveKey;
  if (process.env.PROFILE_LIMITED === "1") key = await limitedProjectKey(gw, "profile-limits");
  const target = {
    // PROFILE_HITS=1: the same request every time, so the exact cache answers (scenario (d)).
    url: `${gw.url}/chat/completions`, body: chatBody(model, false, process.env.PROFILE_HITS !== "1"),
    headers: {
      "content-type": "application/json", authorization: `Bearer ${key}`,
      // Scenarios (a) and (b) send X-Gw-Cache: off; PROFILE_CACHE=off profiles that path.
      ...(process.env.PROFILE_CACHE === "off" ? { "x-gw-cache": "off" } : {}),
    },
  };
  await runWrk(target, { seconds: settings.warmupSeconds, connections: settings.connections });
  const cpu0 = cpuSeconds(gw.proc.pid);
  const main0 = mainThreadCpuSeconds(gw.proc.pid);
  const loadStart = performance.now();
  const w = await runWrk(target, { seconds, connections: settings.connections });
  const loadEnd = performance.now();
  const cpuUs = ((cpuSeconds(gw.proc.pid) - cpu0) / w.requests) * 1e6;
  const mainUs = ((mainThreadCpuSeconds(gw.proc.pid) - main0) / w.requests) * 1e6;
  await stop(gw.proc, 20_000);
  const exited = performance.now();
  const file = readdirSync(dir).includes(name) ? join(dir, name) : null;
  if (!file) throw new Error(`gw wrote no profile ${name} in ${dir}`);
  // Only the measured load: start-up, warm-up and the shutdown flush are left out.
  const s = summarise(file, 25, { fromMsBeforeEnd: exited - loadStart, toMsBeforeEnd: exited - loadEnd });
  const md = [
    `Profile of gw's request thread (\`bun --cpu-prof\`, 1 ms sampling): ${new Date().toISOString()}, ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), Bun ${Bun.version}, commit ${commit}${dirty ? " + uncommitted changes in src/" : ""}.`,
    `Load: wrk -t1 -c${settings.connections}, ${seconds} s after a ${settings.warmupSeconds} s warm-up; model \`${model}\`, live key, project with rate_limits set, cache ${process.env.PROFILE_CACHE === "off" ? "off" : "on"}, ${process.env.PROFILE_HITS === "1" ? "the same prompt every time (exact-cache hits)" : "a unique prompt per request (no hits)"}; the scripted upstream answers at once.`,
    `Under the profiler: ${w.rps.toFixed(0)} req/s, p50 ${w.p50.toFixed(2)} ms, p99 ${w.p99.toFixed(2)} ms, ${w.errors} errors, ${cpuUs.toFixed(0)} µs CPU per request, ${mainUs.toFixed(0)} of them on the request thread (profiler included).`,
    `Profile file: ${file} (open in Chrome DevTools or speedscope; \`bun bench/lib/cpu-profile.ts FILE\` prints this summary).`,
    "",
    s.markdown,
  ].join("\n");
  if (out) writeFileSync(out, md + "\n");
  console.log(md);
} finally {
  await stopAll();
}
process.exit(0);
