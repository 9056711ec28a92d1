// The request log and resources under sustained load, on a fresh gw of its own: rows written per
// second, how far the log trails the responses during load and at its end (flush lag), rows after
// the shutdown flush, CPU per request (gw's CPU seconds / requests), RSS idle, peak and after load.
import { startGw, stop } from "../lib/processes.ts";
import { cpuSeconds, RowCounter, rssMiB } from "../lib/proc-stats.ts";
import { envNumber, fmt, percentiles, table } from "../lib/stats.ts";
import { settings, targets, type Scenario } from "../lib/stack.ts";
import { runWrk } from "../lib/wrk.ts";

const SUSTAIN = envNumber("BENCH_SUSTAIN_SECONDS", 10);
const BOUND_MS = 10_000;

/** Polls every `everyMs` until at least `want` rows are there and the count has not moved for 200 ms.
 * Uses the exact count: ids are minted when a request starts and rows written when it ends, so a
 * slow request's row can land below the newest id seen, where the incremental poll misses it. */
async function settle(counter: RowCounter, want: number, everyMs: number): Promise<{ rows: number; reachedAt: number } | null> {
  const deadline = Date.now() + BOUND_MS;
  let rows = counter.count();
  let changedAt = Date.now();
  while (Date.now() < deadline) {
    if (rows >= want && Date.now() - changedAt >= 200) return { rows, reachedAt: changedAt };
    await Bun.sleep(everyMs);
    const now = counter.count();
    counter.poll();
    if (now !== rows) (rows = now), (changedAt = Date.now());
  }
  return null;
}

export const resources: Scenario = async (stack) => {
  const gw = await startGw((await stack.upstream()).url);
  const pid = gw.proc.pid;
  const target = await targets.gwLive(stack, {}, gw);
  const counter = new RowCounter(gw.dataDir);
  try {
    await Bun.sleep(1_000);
    const rssStart = rssMiB(pid);
    const warm = await runWrk(target, { seconds: settings.warmupSeconds, connections: settings.connections });
    await settle(counter, warm.requests - warm.non2xx, 10);
    await Bun.sleep(1_000);
    const rssIdle = rssMiB(pid);
    const rows0 = counter.poll();
    const cpu0 = cpuSeconds(pid);
    let rssPeak = rssIdle;
    let loading = true;
    const staleness: number[] = [];
    const loadStart = Date.now();
    const load = runWrk(target, { seconds: SUSTAIN, connections: settings.connections }).finally(() => (loading = false));
    for (let i = 0; loading; i++) {
      counter.poll();
      // How far the log trails the responses: now - completion time of the newest logged request.
      if (Date.now() - loadStart > 500) staleness.push(Date.now() - counter.newestDoneAt);
      if (i % 10 === 0) rssPeak = Math.max(rssPeak, rssMiB(pid));
      await Bun.sleep(10);
    }
    const w = await load;
    const rowsAtEnd = counter.poll() - rows0;
    const ok = w.requests - w.non2xx;
    const end = await settle(counter, rows0 + ok, 2);
    // End-of-load flush lag: the last request's completion -> the moment its row was visible.
    const lagMs = end ? end.reachedAt - counter.newestDoneAt : NaN;
    const cpu = cpuSeconds(pid) - cpu0;
    await Bun.sleep(1_000);
    const rssAfter = rssMiB(pid);
    await stop(gw.proc);
    const rowsAfterShutdown = counter.count() - rows0;
    const stale = percentiles(staleness);
    const data = {
      seconds: w.seconds, requests: w.requests, ok, rps: w.rps, errors: w.errors,
      rowsPerSecond: rowsAtEnd / w.seconds, rowsAtEnd, rowsSettled: end ? end.rows - rows0 : null, rowsAfterShutdown,
      flushLagMs: lagMs, stalenessMs: { ...stale, max: Math.max(...staleness) },
      cpuSeconds: cpu, cpuUsPerRequest: (cpu / Math.max(1, w.requests)) * 1e6, cpuCores: cpu / w.seconds,
      rssStartMiB: rssStart, rssIdleMiB: rssIdle, rssPeakMiB: rssPeak, rssAfterMiB: rssAfter,
    };
    const lines = [
      `A fresh gw, live key, wrk -t1 -c${settings.connections} for ${SUSTAIN} s after a ${settings.warmupSeconds} s warm-up. gw's SQLite file is read (read-only, WAL) every 10 ms during load and every 2 ms after; RSS every 100 ms. A request's completion time is its row's created_at + latency_ms (1 ms resolution).`,
      "",
      ...table(["measure", "value"], [
        ["200 responses / req/s", `${ok} / ${fmt(w.rps, 0)}`],
        ["request-log rows written per second during load", fmt(data.rowsPerSecond, 0)],
        ["log staleness during load p50 / p99 / max (now - newest logged completion)", `${fmt(stale.p50, 0)} / ${fmt(stale.p99, 0)} / ${fmt(data.stalenessMs.max, 0)} ms`],
        ["flush lag at end of load (last completion -> its row visible)", end ? `${fmt(lagMs, 0)} ms` : `rows did not reach ${ok} in ${BOUND_MS} ms`],
        ["rows at end of load / settled / 200 responses", `${rowsAtEnd} / ${data.rowsSettled ?? "n/a"} / ${ok}`],
        ["rows after gw's shutdown flush (incl. requests cut at the end of load)", String(rowsAfterShutdown)],
        ["gw CPU per request", `${fmt(data.cpuUsPerRequest, 0)} µs (${fmt(data.cpuCores)} cores busy)`],
        ["RSS at start (idle)", `${fmt(rssStart, 1)} MiB`],
        ["RSS after warm-up (idle)", `${fmt(rssIdle, 1)} MiB`],
        ["RSS under load (peak)", `${fmt(rssPeak, 1)} MiB`],
        ["RSS 1 s after load", `${fmt(rssAfter, 1)} MiB`],
      ]),
    ];
    const problems = [
      ...(w.errors > 0 ? [`resources: ${w.errors} failed requests`] : []),
      ...(rowsAfterShutdown < ok ? [`resources: ${ok - rowsAfterShutdown} request-log rows missing after shutdown`] : []),
    ];
    return {
      title: "Request log, CPU and memory under sustained load",
      lines,
      data,
      problems,
      headline: [
        ["RSS idle / under load (peak)", `${fmt(rssIdle, 1)} / ${fmt(rssPeak, 1)} MiB`],
        ["gw CPU per request (live)", `${fmt(data.cpuUsPerRequest, 0)} µs`],
        ["request-log rows/s; staleness p99; end flush lag", `${fmt(data.rowsPerSecond, 0)}/s; ${fmt(stale.p99, 0)} ms; ${fmt(lagMs, 0)} ms`],
      ],
    };
  } finally {
    counter.close();
    await stop(gw.proc);
  }
};
