// Load tools: installs wrk and hey from Debian's packages when missing, and runs wrk for a bounded
// time against loopback. A Lua done() hook prints exact counts and the p50/p95/p99 wrk measured.
import { writeFileSync } from "node:fs";
import { scratchFile, track } from "./processes.ts";

/** Installs the missing tools with apt-get (update first); throws a clear error when that fails. */
export function ensureTools(tools: ReadonlyArray<{ bin: string; pkg: string }>): void {
  const missing = tools.filter((t) => !Bun.which(t.bin));
  if (missing.length === 0) return;
  const pkgs = missing.map((t) => t.pkg).join(" ");
  console.log(`bench: installing ${pkgs} from Debian's packages...`);
  const out = Bun.spawnSync(["bash", "-c", `(apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${pkgs}`], {
    stdout: "inherit", stderr: "inherit", timeout: 300_000,
  });
  const still = missing.filter((t) => !Bun.which(t.bin));
  if (out.exitCode !== 0 || still.length > 0) {
    throw new Error(`bench needs ${still.map((t) => t.bin).join(", ")}: install with 'apt-get install -y ${pkgs}' (as root) and rerun`);
  }
}

export interface Target {
  url: string;
  /** A body with VARY in it gets a request-unique token there (a run-unique prefix and a counter). */
  body: string;
  headers: Record<string, string>;
}

/** Marks where a varied body takes its per-request token (so no two requests are the same). */
export const VARY = "@@VARY@@";

export interface WrkResult {
  requests: number;
  seconds: number;
  rps: number;
  /** milliseconds */
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  errors: number;
  non2xx: number;
}

function luaFor(t: Target): string {
  const file = scratchFile(`wrk-${Bun.hash(t.body + JSON.stringify(t.headers)).toString(16)}.lua`);
  const lines = [`wrk.method = "POST"`, `wrk.body = ${JSON.stringify(t.body)}`];
  for (const [k, v] of Object.entries(t.headers)) lines.push(`wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`);
  const at = t.body.indexOf(VARY);
  if (at >= 0) {
    // One formatted request per call: the same cost on every side, so ratios stay fair.
    lines.push(
      `local head, tail = ${JSON.stringify(t.body.slice(0, at))}, ${JSON.stringify(t.body.slice(at + VARY.length))}`,
      "local n, tag = 0, \"\"",
      "function init(args) math.randomseed(os.time() + math.floor(os.clock() * 1e6)); tag = tostring(math.random(1, 1000000000)) end",
      "function request() n = n + 1; return wrk.format(nil, nil, nil, head .. tag .. \"-\" .. n .. tail) end",
    );
  }
  lines.push(
    "function done(summary, latency, requests)",
    "  local e = summary.errors",
    '  io.write(string.format("GWBENCH %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.1f %.1f %.1f %.1f\\n",',
    "    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,",
    "    latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.mean))",
    "end",
  );
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

/** wrk -t1 for `seconds` (killed if it overruns); the caller may sample the system while it runs. */
export async function runWrk(t: Target, o: { seconds: number; connections: number }): Promise<WrkResult> {
  const proc = track(Bun.spawn(["wrk", "-t1", `-c${o.connections}`, `-d${o.seconds}s`, "--timeout", "10s", "-s", luaFor(t), t.url], {
    stdout: "pipe", stderr: "inherit", timeout: (o.seconds + 30) * 1000,
  }));
  const text = await new Response(proc.stdout).text();
  await proc.exited;
  const m = text.match(/GWBENCH ([\d.\s]+)/);
  if (!m) throw new Error(`wrk printed no summary (exit ${proc.exitCode}):\n${text}`);
  const [requests, durationUs, connect, read, write, status, timeout, p50, p95, p99, mean] = (m[1] as string).trim().split(/\s+/).map(Number) as number[];
  const seconds = (durationUs as number) / 1e6;
  return {
    requests: requests as number,
    seconds,
    rps: (requests as number) / seconds,
    p50: (p50 as number) / 1000,
    p95: (p95 as number) / 1000,
    p99: (p99 as number) / 1000,
    mean: (mean as number) / 1000,
    errors: (connect as number) + (read as number) + (write as number) + (status as number) + (timeout as number),
    non2xx: status as number,
  };
}
