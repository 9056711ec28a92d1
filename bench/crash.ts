// `bun bench/crash.ts`: the request log and the ledger after gw dies under load (issue 19 "Done
// when"). kill -9 mid-load: every charge must have its row and every charged row its charge, and the
// newest logged completion near the kill; SIGTERM mid-load: a row for every answer wrk received.
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startGw, startUpstream, stop, stopAll } from "./lib/processes.ts";
import { chatBody, settings } from "./lib/stack.ts";
import { envNumber } from "./lib/stats.ts";
import { ensureTools, runWrk } from "./lib/wrk.ts";

const LOAD_SECONDS = envNumber("CRASH_LOAD_SECONDS", 6);
const KILL_AFTER_MS = envNumber("CRASH_AFTER_MS", 3_000);
/** kill -9 trials; each kills a little later than the one before, so batches are cut at other points. */
const TRIALS = envNumber("CRASH_TRIALS", 3);

interface Outcome {
  signal: string;
  answered: number;
  rows: number;
  charges: number;
  chargesWithoutRow: number;
  rowsWithoutCharge: number;
  /** Kill time minus the newest logged request's completion (created_at + latency_ms), ms. */
  newestRowBeforeKillMs: number;
}

function inspect(dataDir: string, projectId: string, killedAt: number): Omit<Outcome, "signal" | "answered"> {
  // Read-write, so SQLite replays the WAL the dead process left, as gw itself would on restart.
  const db = new Database(join(dataDir, "gw.sqlite"));
  try {
    const one = <T>(sql: string) => db.query<T, [string]>(sql).get(projectId) as T;
    const rows = one<{ n: number }>("SELECT count(*) AS n FROM requests WHERE project_id = ?").n;
    const charges = one<{ n: number }>("SELECT count(*) AS n FROM ledger WHERE project_id = ? AND kind = 'charge'").n;
    const chargesWithoutRow = one<{ n: number }>(
      "SELECT count(*) AS n FROM ledger l WHERE l.project_id = ? AND l.kind = 'charge' AND NOT EXISTS (SELECT 1 FROM requests r WHERE r.project_id = l.project_id AND r.id = l.request_id)",
    ).n;
    // A live answer from the upstream is charged; errors and refusals are not (status 200 only).
    const rowsWithoutCharge = one<{ n: number }>(
      "SELECT count(*) AS n FROM requests r WHERE r.project_id = ? AND r.status = 200 AND NOT EXISTS (SELECT 1 FROM ledger l WHERE l.project_id = r.project_id AND l.request_id = r.id AND l.kind = 'charge')",
    ).n;
    const newest = one<{ t: number | null }>("SELECT max(created_at + latency_ms) AS t FROM requests WHERE project_id = ?").t;
    return { rows, charges, chargesWithoutRow, rowsWithoutCharge, newestRowBeforeKillMs: newest === null ? NaN : killedAt - newest };
  } finally {
    db.close();
  }
}

async function trial(upstreamUrl: string, signal: "SIGKILL" | "SIGTERM", afterMs: number): Promise<Outcome> {
  const gw = await startGw(upstreamUrl);
  const target = {
    url: `${gw.url}/chat/completions`, body: chatBody("openai/gpt-4o-mini", false, true),
    headers: { "content-type": "application/json", authorization: `Bearer ${gw.liveKey}` },
  };
  const load = runWrk(target, { seconds: LOAD_SECONDS, connections: settings.connections });
  await Bun.sleep(afterMs);
  const killedAt = Date.now();
  if (signal === "SIGKILL") gw.proc.kill("SIGKILL");
  else await stop(gw.proc, 20_000);
  await gw.proc.exited;
  const w = await load;
  return { signal, answered: w.requests - w.non2xx, ...inspect(gw.dataDir, gw.projectId, killedAt) };
}

ensureTools([{ bin: "wrk", pkg: "wrk" }]);
try {
  const upstream = await startUpstream({ delayMs: 0, chunkDelayMs: 0, words: 18 });
  const outcomes: Outcome[] = [];
  for (let i = 0; i < TRIALS; i++) outcomes.push(await trial(upstream.url, "SIGKILL", KILL_AFTER_MS + i * 137));
  outcomes.push(await trial(upstream.url, "SIGTERM", KILL_AFTER_MS));
  console.log(`gw killed ${KILL_AFTER_MS} ms (+137 ms per further kill -9 trial) into wrk -c${settings.connections} load (live key, unique prompts); the database read after it exited:\n`);
  console.log("| signal | answers wrk got | log rows | charges | charges without a row | answered rows without a charge | newest row's completion before the kill |");
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (const o of outcomes) {
    console.log(`| ${o.signal} | ${o.answered} | ${o.rows} | ${o.charges} | ${o.chargesWithoutRow} | ${o.rowsWithoutCharge} | ${o.newestRowBeforeKillMs.toFixed(0)} ms |`);
  }
  const term = outcomes.at(-1)!;
  const worstGap = Math.max(...outcomes.slice(0, -1).map((o) => o.newestRowBeforeKillMs));
  const ok = outcomes.every((o) => o.chargesWithoutRow === 0 && o.rowsWithoutCharge === 0) && term.rows >= term.answered;
  console.log(`\n${ok ? "consistent" : "NOT consistent"}: SIGTERM kept ${term.rows} rows for ${term.answered} answers; kill -9 lost the rows of at most about the last ${worstGap.toFixed(0)} ms (target: at most 100 ms).`);
  if (!ok) process.exitCode = 1;
} finally {
  await stopAll();
}
