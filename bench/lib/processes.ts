// Starts the benchmark's processes (scripted upstream, bare proxy, Portkey, gw), waits until each
// answers, and stops every one of them (and removes their temp dirs) in stopAll, also on failure.
import type { Subprocess } from "bun";
import { existsSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** What stop() needs of a child process, whatever its stdio. */
interface Proc {
  readonly exited: Promise<number>;
  readonly exitCode: number | null;
  readonly signalCode: unknown;
  readonly pid: number;
  kill(signal?: NodeJS.Signals | number): void;
}
const started = new Set<Proc>();
const tempDirs = new Set<string>();

export function track<P extends Proc>(proc: P): P {
  started.add(proc);
  void proc.exited.then(() => started.delete(proc));
  return proc;
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
export async function stop(proc: Proc, graceMs = 5_000): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill("SIGTERM");
  const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
  await proc.exited;
  clearTimeout(timer);
}

/** Stops every process started here and removes the temp dirs (idempotent). */
export async function stopAll(): Promise<void> {
  await Promise.all([...started].map((p) => stop(p)));
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

let scratch: string | null = null;
/** A temp dir for load-tool scripts and bodies, removed by stopAll (and made again when needed). */
export function scratchFile(name: string): string {
  if (scratch === null || !existsSync(scratch)) scratch = tempDir("gw-bench-load-");
  return join(scratch, name);
}

/** A port the kernel just handed out on loopback (for servers that need one on the command line). */
export function freePort(): number {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(null) });
  const port = s.port as number;
  s.stop(true);
  return port;
}

async function readLineMatching(proc: Subprocess<"ignore", "pipe", "inherit">, pattern: RegExp, ms = 15_000): Promise<RegExpMatchArray> {
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const timeout = setTimeout(() => void reader.cancel(), ms);
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      const match = text.match(pattern);
      if (match) return match;
    }
  } finally {
    clearTimeout(timeout);
    reader.releaseLock();
  }
  throw new Error(`process did not print ${pattern}; output:\n${text}`);
}

export async function waitForHttp(url: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      await fetch(url, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      await Bun.sleep(50);
    }
  }
  throw new Error(`${url} did not come up within ${ms} ms`);
}

/** A Bun script that prints `<TAG> <url>` once it listens. */
async function startPrintingUrl(script: string, tag: string, env: Record<string, string>) {
  const proc = track(Bun.spawn(["bun", "run", script], { stdout: "pipe", stderr: "inherit", env: { ...process.env, ...env } }));
  const [, url] = await readLineMatching(proc, new RegExp(`${tag} (\\S+)`));
  void (async () => { for await (const _ of proc.stdout) { /* drain */ } })();
  return { url: url as string, proc };
}

export interface UpstreamOptions {
  delayMs: number;
  chunkDelayMs: number;
  /** Words in every answer: a stream has this many content chunks plus role, stop, usage, [DONE]. */
  words: number;
}

export const startUpstream = (o: UpstreamOptions) =>
  startPrintingUrl("bench/upstream-server.ts", "UPSTREAM", {
    UPSTREAM_DELAY_MS: String(o.delayMs), UPSTREAM_CHUNK_DELAY_MS: String(o.chunkDelayMs), UPSTREAM_WORDS: String(o.words),
  });

export const startBareProxy = (upstreamUrl: string) => startPrintingUrl("bench/bare-proxy.ts", "BARE_PROXY", { UPSTREAM_URL: upstreamUrl });

/** The bare proxy plus the least work of a gateway that meters (bench/metering-floor.ts). */
export const startMeteringFloor = (upstreamUrl: string) => startPrintingUrl("bench/metering-floor.ts", "METERING_FLOOR", { UPSTREAM_URL: upstreamUrl });

/** The metering floor plus gw's own durable request log, trace and charge (bench/durable-floor.ts). */
export const startDurableFloor = (upstreamUrl: string) => startPrintingUrl("bench/durable-floor.ts", "DURABLE_FLOOR", { UPSTREAM_URL: upstreamUrl });

/** Portkey's open-source gateway (a devDependency) on Bun; routed per request by x-portkey-* headers. */
export async function startPortkey() {
  const script = "node_modules/@portkey-ai/gateway/build/start-server.js";
  if (!existsSync(script)) throw new Error(`${script} is missing: run 'make install' (Portkey is a devDependency)`);
  const port = freePort();
  const proc = track(Bun.spawn(["bun", script, `--port=${port}`, "--headless"], {
    stdout: "ignore", stderr: "inherit", env: { ...process.env, NODE_ENV: "production" },
  }));
  await waitForHttp(`http://127.0.0.1:${port}/`);
  return { url: `http://127.0.0.1:${port}/v1`, proc };
}

function cli(dataDir: string, args: string[]): Record<string, unknown> {
  const out = Bun.spawnSync(["bun", "run", "src/main.ts", ...args, "--data", dataDir], { timeout: 30_000 });
  if (out.exitCode !== 0) throw new Error(`gw ${args.join(" ")} failed: ${out.stderr.toString()}`);
  return JSON.parse(out.stdout.toString()) as Record<string, unknown>;
}

export interface Gw {
  url: string;
  proc: Proc;
  dataDir: string;
  projectId: string;
  liveKey: string;
  testKey: string;
  /** PATCHes the project through the admin API (policy merged key by key, billing as given). */
  patchProject(body: Record<string, unknown>): Promise<void>;
  /** One admin API call (path under /v1/admin); throws unless it answers 2xx. */
  admin(method: string, path: string, body?: unknown): Promise<Record<string, unknown>>;
}

/** Scenario (b)'s project, as a careful operator sets one up through the admin API: rate limits
 * (project and per key), prepaid credit and daily and monthly budgets, all far above what a run
 * uses. Returns its live key. */
export async function limitedProjectKey(gw: Gw, name: string): Promise<string> {
  const project = await gw.admin("POST", "/projects", {
    name, billing: { mode: "prepaid" },
    policy: { rate_limits: { rpm: 100_000_000, tpm: 100_000_000_000, per_key: { rpm: 100_000_000, tpm: 100_000_000_000 } }, budgets: { daily: 1_000_000, monthly: 10_000_000 } },
  });
  await gw.admin("POST", `/projects/${String(project.id)}/credits`, { amount: 1_000_000 });
  return String((await gw.admin("POST", `/projects/${String(project.id)}/keys`, {})).key);
}

/** The admin token every bench gw runs with, so a scenario can set policy through the admin API. */
const ADMIN_TOKEN = "bench-admin-token-".padEnd(64, "0");

export interface GwOptions {
  /** Arguments for bun before `run` (e.g. `--cpu-prof`, `--cpu-prof-dir=...`). */
  bunArgs?: string[];
  env?: Record<string, string>;
}

/** gw from source with OpenAI pointed at the upstream; a project, a live and a test key made through the CLI. */
export async function startGw(upstreamUrl: string, o: GwOptions = {}): Promise<Gw> {
  const dataDir = tempDir("gw-bench-");
  const project = cli(dataDir, ["projects", "create", "--name", "bench"]);
  const live = cli(dataDir, ["keys", "create", "--project", String(project.id)]);
  const test = cli(dataDir, ["keys", "create", "--project", String(project.id), "--test"]);
  const port = freePort();
  // Log lines go to a file, as under a process manager; a pipe the bench drains would cost its CPU.
  const log = openSync(join(dataDir, "gw.log"), "w");
  const proc = track(Bun.spawn(["bun", ...(o.bunArgs ?? []), "run", "src/main.ts", "serve", "--port", String(port), "--data", dataDir], {
    stdout: log,
    stderr: "inherit",
    env: {
      ...process.env, OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: upstreamUrl, GW_LOG_LEVEL: process.env.GW_LOG_LEVEL ?? "info",
      GW_ADMIN_TOKEN: ADMIN_TOKEN, ...o.env,
    },
  }));
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/v1/models`);
  const projectId = String(project.id);
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/v1/admin${path}`, {
      method, headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_TOKEN}` }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} /v1/admin${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  const patchProject = async (body: Record<string, unknown>) => void (await admin("PATCH", `/projects/${projectId}`, body));
  return { url: `${base}/v1`, proc, dataDir, projectId, liveKey: String(live.key), testKey: String(test.key), patchProject, admin };
}
