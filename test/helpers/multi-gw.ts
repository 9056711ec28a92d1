// Several real gw processes (`bun src/main.ts serve`) in the multi-instance mode on one PostgreSQL
// and one Redis started for the file (docs/scale-out.md): each in its own data directory on a free
// 127.0.0.1 port, awaited on /healthz (readiness also wants a provider, which a test names), stopped by SIGTERM (or killed by a test) and removed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startPostgres, startRedis, type PostgresService, type Service } from "./services.ts";
import { waitFor } from "./wait-for.ts";

const ROOT = resolve(import.meta.dir, "../..");
export const MULTI_ADMIN_TOKEN = "multi-test-admin-token-0123456789abcdef";
/** Every instance seals and opens provider keys with this one key (the mode requires it). */
export const MULTI_SECRET_KEY = "multi-test-secret-key-0123456789abcdef0123456789";

export interface GwInstance {
  /** http://127.0.0.1:PORT (no path). */
  origin: string;
  /** origin + /v1 */
  url: string;
  dir: string;
  proc: ReturnType<typeof Bun.spawn>;
  output(): string;
  /** SIGTERM and wait (SIGKILL after 15 s); the exit code. */
  stop(): Promise<number>;
  /** SIGKILL at once (a crash): nothing of its own stop runs. */
  kill(): Promise<number>;
}

export interface MultiGw {
  pg: PostgresService;
  redis: Service;
  instances: GwInstance[];
  /** The environment every instance got (with the service URLs), for starting one more. */
  env: Record<string, string>;
  start(extraEnv?: Record<string, string>): Promise<GwInstance>;
  /** A /v1/admin call on instance `i` (default 0). */
  admin(method: string, path: string, body?: unknown, i?: number): Promise<Response>;
  stop(): Promise<void>;
}

async function startInstance(env: Record<string, string>): Promise<GwInstance> {
  const dir = mkdtempSync(join(tmpdir(), "gw-multi-"));
  const proc = Bun.spawn(["bun", join(ROOT, "src/main.ts"), "serve", "--host", "127.0.0.1", "--port", "0", "--data", join(dir, "data")], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GW_SHUTDOWN_TIMEOUT_S: "2", GW_LOG_LEVEL: process.env.GW_TEST_LOG_LEVEL ?? "info", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  let out = "";
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) out += decoder.decode(chunk, { stream: true });
  };
  void drain(proc.stdout as ReadableStream<Uint8Array>);
  void drain(proc.stderr as ReadableStream<Uint8Array>);
  let port = 0;
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    await waitFor(() => {
      if (proc.exitCode !== null) throw new Error(`gw exited with ${proc.exitCode}:\n${out}`);
      const m = out.match(/"url":"http:\/\/127\.0\.0\.1:(\d+)/);
      if (m) port = Number(m[1]);
      return port > 0;
    }, { timeoutMs: 90_000, what: "gw to print its listening address" });
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.status === 200, { timeoutMs: 60_000, what: "gw /healthz" });
  } catch (e) {
    proc.kill("SIGKILL");
    await proc.exited;
    cleanup();
    throw e;
  }
  const origin = `http://127.0.0.1:${port}`;
  let ended: Promise<number> | null = null;
  const end = (signal: "SIGTERM" | "SIGKILL") => (ended ??= (async () => {
    proc.kill(signal);
    const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
    const code = await proc.exited;
    clearTimeout(timer);
    cleanup();
    return code;
  })());
  return { origin, url: `${origin}/v1`, dir, proc, output: () => out, stop: () => end("SIGTERM"), kill: () => end("SIGKILL") };
}

/** Starts PostgreSQL, Redis and `count` instances; `env` adds to every instance's environment
 * (upstreams, limits). */
export async function startMultiGw(count: number, env: Record<string, string> = {}): Promise<MultiGw> {
  const [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  const shared: Record<string, string> = {
    GW_DATABASE_URL: pg.url, GW_REDIS_URL: redis.url, GW_ADMIN_TOKEN: MULTI_ADMIN_TOKEN, GW_SECRET_KEY: MULTI_SECRET_KEY, ...env,
  };
  const instances: GwInstance[] = [];
  const stopAll = async () => {
    await Promise.all(instances.map((i) => i.stop()));
    await Promise.all([redis.stop(), pg.stop()]);
  };
  try {
    // One after the other: the first applies the migrations, the others find them applied.
    for (let i = 0; i < count; i++) instances.push(await startInstance(shared));
  } catch (e) {
    await stopAll();
    throw e;
  }
  return {
    pg, redis, instances, env: shared,
    start: async (extra = {}) => {
      const instance = await startInstance({ ...shared, ...extra });
      instances.push(instance);
      return instance;
    },
    admin: (method, path, body, i = 0) => fetch(`${instances[i]!.url}/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${MULTI_ADMIN_TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    stop: stopAll,
  };
}
