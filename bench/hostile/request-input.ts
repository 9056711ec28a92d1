// Each hostile body of bodies.ts through a real gw (test key: the sandbox answers; project policy
// pii and secrets redact): status, wall time, the longest event-loop block seen meanwhile and the
// slowest stage span. `bun bench/hostile/request-input.ts [name]`.
import { updateProject } from "../../src/admin/projects.ts";
import { startTestGw } from "../../test/helpers/test-gw.ts";
import { HOSTILE_BODIES } from "./bodies.ts";

const only = process.argv[2];
const gw = await startTestGw({ GW_SEMANTIC_EMBEDDER: "off" });
updateProject(gw.deps.repos.projects, gw.projectId, { policy: { pii: "redact", secrets: "redact" } }, []);
gw.deps.authCache.clear();

/** The longest gap between timer ticks: the longest time the event loop was busy in one go. */
function lagMonitor(): { stop(): number } {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 1);
    last = now;
  }, 1);
  return { stop: () => (clearInterval(timer), Math.round(worst)) };
}

// The tokenizer's tables load on first use (a one-time block of about a second, reported apart).
{
  const start = performance.now();
  await fetch(gw.url + "/chat/completions", { method: "POST", headers: { authorization: `Bearer ${gw.testKey}`, "content-type": "application/json" }, body: JSON.stringify({ messages: [{ role: "user", content: "warm up" }] }) });
  console.log(`first request (tokenizer tables load): ${Math.round(performance.now() - start)} ms\n`);
}
console.log("| body | bytes | status | wall ms | longest block ms | slowest stages (ms) |");
console.log("|---|---|---|---|---|---|");
for (const [name, make] of Object.entries(HOSTILE_BODIES)) {
  if (only && name !== only) continue;
  const { path, body } = make();
  Bun.gc(true);
  const lag = lagMonitor();
  const start = performance.now();
  const res = await fetch(gw.url + path, { method: "POST", headers: { authorization: `Bearer ${gw.testKey}`, "content-type": "application/json", "x-gw-cache": "off" }, body });
  await res.arrayBuffer();
  const wall = Math.round(performance.now() - start);
  const worst = lag.stop();
  await gw.drain();
  const id = res.headers.get("x-gw-request-id");
  const detail = (await (await fetch(`${gw.url}/requests/${id}`, { headers: { authorization: `Bearer ${gw.testKey}` } })).json()) as { trace?: { timings?: Record<string, number> } };
  const timings = Object.entries(detail.trace?.timings ?? {}).filter(([k]) => k !== "total").sort((a, b) => b[1] - a[1]);
  const slow = timings.slice(0, 2).map(([k, v]) => `${k} ${Math.round(v)}`).join(", ") || "-";
  console.log(`| ${name} | ${body.length} | ${res.status} | ${wall} | ${worst} | ${slow} |`);
}
await gw.stop();
