// Runs wrk (installed from Debian's packages when missing) for a bounded time against loopback
// and parses requests/s and latency percentiles from its --latency report.
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface WrkResult {
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  errors: number;
}

export function ensureWrk(): void {
  if (Bun.which("wrk")) return;
  console.log("bench: installing wrk from Debian's packages...");
  const out = Bun.spawnSync(["bash", "-c", "(apt-get update -qq || true) && apt-get install -y -qq wrk"], { stdout: "inherit", stderr: "inherit" });
  if (out.exitCode !== 0 || !Bun.which("wrk")) throw new Error("wrk is required: apt-get install wrk");
}

const ms = (value: string, unit: string): number => Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? 1);

function luaFor(body: string, headers: Record<string, string>): string {
  const file = join(tmpdir(), `gw-wrk-${Bun.hash(body + JSON.stringify(headers)).toString(16)}.lua`);
  const lines = [`wrk.method = "POST"`, `wrk.body = ${JSON.stringify(body)}`];
  for (const [k, v] of Object.entries(headers)) lines.push(`wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`);
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

export function runWrk(url: string, body: string, headers: Record<string, string>, o: { seconds: number; connections: number }): WrkResult {
  const script = luaFor(body, headers);
  const out = Bun.spawnSync(["wrk", "-t1", `-c${o.connections}`, `-d${o.seconds}s`, "--latency", "-s", script, url], { timeout: (o.seconds + 30) * 1000 });
  const text = out.stdout.toString();
  const rps = Number(text.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? 0);
  const pct = (p: string) => {
    const m = text.match(new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s)`));
    return m ? ms(m[1] as string, m[2] as string) : NaN;
  };
  const non2xx = Number(text.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0);
  const socket = text.match(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/);
  const errors = non2xx + (socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0);
  return { rps, p50: pct("50"), p90: pct("90"), p99: pct("99"), errors };
}
