// A `gw serve` child process for lifecycle tests: started from source with a clean environment,
// its stdout collected as it arrives, and helpers to wait for output or for it to serve.
import { expect } from "bun:test";
import type { Subprocess } from "bun";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "..", "..");

/** Every process started here, so a test file's afterAll can kill what is left. */
export const running = new Set<Served>();

/** An environment without admin token or provider keys, so the runs do not depend on the caller's shell. */
export function envFor(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/_API_KEY$|_BASE_URL$|^GW_|^PORT$|^HOST$/.test(k)) env[k] = v;
  }
  return { ...env, GW_DATA_DIR: dataDir, GW_LOG_LEVEL: "warn", ...extra };
}

/** Runs `bun run src/main.ts ...args` to the end. */
export async function cli(dataDir: string, ...args: string[]) {
  const proc = Bun.spawn(["bun", "run", "src/main.ts", ...args], { cwd: ROOT, env: envFor(dataDir), stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

export async function cliJson(dataDir: string, ...args: string[]): Promise<Record<string, unknown>> {
  const r = await cli(dataDir, ...args);
  if (r.code !== 0) throw new Error(`gw ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

export function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

/** `n` distinct free ports: every probe stays open until all are taken, so two calls cannot be
 * handed the same port (two freePort() calls in a row sometimes are, on a busy machine). */
export function freePorts(n: number): number[] {
  const probes = Array.from({ length: n }, () => Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") }));
  const ports = probes.map((p) => p.port!);
  for (const p of probes) p.stop(true);
  return ports;
}

/** A `gw serve` process whose stdout is collected as it arrives. */
export class Served {
  readonly proc: Subprocess<"ignore", "pipe", "pipe">;
  readonly url: string;
  readonly port: number;
  stdout = "";
  private notify: Array<() => void> = [];

  constructor(dataDir: string, options: { port?: number; env?: Record<string, string> } = {}) {
    const port = options.port ?? freePort();
    this.port = port;
    this.url = `http://127.0.0.1:${port}/v1`;
    this.proc = Bun.spawn(["bun", "run", "src/main.ts", "serve", "--port", String(port), "--data", dataDir], {
      cwd: ROOT, env: envFor(dataDir, options.env), stdin: "ignore", stdout: "pipe", stderr: "pipe",
    });
    running.add(this);
    void this.pump();
  }

  private async pump(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.proc.stdout) {
      this.stdout += decoder.decode(chunk, { stream: true });
      for (const n of this.notify.splice(0)) n();
    }
    for (const n of this.notify.splice(0)) n();
  }

  /** Reads stdout until `re` matches, failing after `timeoutMs` or if the process exits first. */
  async waitFor(re: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m = this.stdout.match(re);
      if (m) return m;
      if (this.proc.exitCode !== null) throw new Error(`gw exited (${this.proc.exitCode}) before printing ${re}:\n${this.stdout}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`gw did not print ${re} within ${timeoutMs} ms:\n${this.stdout}`);
      const timer = new Promise<void>((r) => setTimeout(r, Math.min(left, 200)));
      await Promise.race([new Promise<void>((r) => this.notify.push(r)), timer, this.proc.exited]);
    }
  }

  /** Polls until the server answers (a restart prints nothing once it listens). */
  async waitUntilServing(key: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.proc.exitCode !== null) throw new Error(`gw exited (${this.proc.exitCode}):\n${this.stdout}`);
      const res = await fetch(`${this.url}/models`, { headers: { authorization: `Bearer ${key}` } }).catch(() => null);
      if (res) {
        expect(res.status).toBe(200);
        return;
      }
      if (Date.now() > deadline) throw new Error(`gw did not start serving within ${timeoutMs} ms`);
      await Bun.sleep(25);
    }
  }

  /** SIGTERM, then the exit code. */
  async terminate(): Promise<number> {
    this.proc.kill("SIGTERM");
    const code = await this.proc.exited;
    running.delete(this);
    return code;
  }

  /** SIGKILL: no chance to flush or close anything. */
  async kill(): Promise<void> {
    this.proc.kill("SIGKILL");
    await this.proc.exited;
    running.delete(this);
  }
}

/** For afterAll: kills every process still running. */
export async function killAll(): Promise<void> {
  for (const s of running) {
    s.proc.kill("SIGKILL");
    await s.proc.exited;
  }
  running.clear();
}
