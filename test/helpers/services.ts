// Real Redis and PostgreSQL for tests (docs/scale-out.md "Test services"): each on a free loopback
// port in its own temp dir, awaited by polling it; stopped by stop(), on SIGTERM/SIGINT, and by a
// watchdog once the test process is gone (bun test runs no exit listeners).
import { afterAll, beforeAll } from "bun:test";
import { RedisClient, SQL } from "bun";
import { appendFileSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Service {
  /** redis://127.0.0.1:PORT or postgres://USER:PASSWORD@127.0.0.1:PORT/DB */
  url: string;
  port: number;
  /** The server's data and log directory, removed by stop(). */
  dir: string;
  /** Random per start; it is in `url` too. */
  password: string;
  stop(): Promise<void>;
}

export interface PostgresService extends Service {
  database: string;
  user: string;
  /** Stops the server (fast shutdown: connections dropped), keeping its data. */
  down(): Promise<void>;
  /** Starts it again on the same port and data after down(); resolves once it answers. */
  up(): Promise<void>;
}

const randomPassword = (): string => Buffer.from(crypto.getRandomValues(new Uint8Array(12))).toString("hex");

export interface ServiceOptions {
  /** The whole start's bound, initdb included (default 60 s: a loaded 2-core machine). */
  timeoutMs?: number;
}

const PG_BIN = "/usr/lib/postgresql/15/bin";

/** Not served.ts's: that one imports bun:test, and this file also runs in plain child processes. */
function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/** Synchronous stops of every running service, for the exit and signal handlers. */
const running = new Map<string, () => void>();
let handlersInstalled = false;

/** A shell that waits for this process to end, however it ends (SIGKILL too), then runs `stop` and
 * removes `dir`. It ignores INT and TERM so a Ctrl-C to the process group does not skip the clean-up. */
function watchdog(dir: string, stop: string[]): { kill(): void } {
  const script = 'trap "" INT TERM; p=$1; d=$2; shift 2; while kill -0 "$p" 2>/dev/null; do sleep 1; done; "$@"; rm -rf "$d"';
  const proc = Bun.spawn(["sh", "-c", script, "gw-service-watchdog", String(process.pid), dir, ...stop], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  proc.unref();
  return { kill: () => proc.kill("SIGKILL") };
}

function track(dir: string, stopNow: () => void): void {
  running.set(dir, stopNow);
  if (handlersInstalled) return;
  handlersInstalled = true;
  const stopAll = () => {
    for (const stop of running.values()) stop();
    running.clear();
  };
  process.on("exit", stopAll);
  for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130]] as const) {
    process.once(signal, () => {
      stopAll();
      process.exit(code);
    });
  }
}

function binary(name: string, dirs: readonly string[]): string {
  const found = Bun.which(name) ?? dirs.map((d) => join(d, name)).find((p) => existsSync(p));
  if (!found) throw new Error(`${name} not found on PATH or in ${dirs.join(", ")}: run \`make services\``);
  return found;
}

const tail = (path: string): string => (existsSync(path) ? readFileSync(path, "utf8").split("\n").slice(-15).join("\n") : "(no log)");

/** Polls `ready` until it resolves true; throws naming `what` (and the log) at the deadline or once `dead` says the process exited. */
async function pollUntil(what: string, deadline: number, ready: () => Promise<boolean>, dead: () => string | null): Promise<void> {
  for (;;) {
    const exited = dead();
    if (exited) throw new Error(`${what}: ${exited}`);
    if (await ready().catch(() => false)) return;
    if (performance.now() > deadline) throw new Error(`${what}: not ready before the time-out`);
    await Bun.sleep(20);
  }
}

/** Runs a command to its end within the deadline; a non-zero exit or the time-out throws naming `what`. */
async function runBounded(cmd: string[], what: string, deadline: number, cwd: string): Promise<void> {
  const proc = Bun.spawn(cmd, { cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const output = Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const left = Math.max(1, deadline - performance.now());
  const code = await Promise.race([proc.exited, Bun.sleep(left).then(() => null)]);
  if (code === null) {
    proc.kill("SIGKILL");
    throw new Error(`${what} did not finish within ${Math.round(left)} ms`);
  }
  if (code !== 0) throw new Error(`${what} exited ${code}: ${(await output).join("\n").trim()}`);
}

export interface RedisOptions extends ServiceOptions {
  /** A restart in place (a test brings a stopped Redis back): this port and password, same URL. */
  port?: number;
  password?: string;
}

/** redis-server on 127.0.0.1 with no persistence (`--save "" --appendonly no`) and a password. */
export async function startRedis(options: RedisOptions = {}): Promise<Service> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = performance.now() + timeoutMs;
  const bin = binary("redis-server", ["/usr/bin", "/usr/local/bin"]);
  const dir = mkdtempSync(join(tmpdir(), "gw-redis-"));
  const log = join(dir, "redis.log");
  const password = options.password ?? randomPassword();
  // A free port can be taken between the probe and the bind: a few tries with fresh ports (or the
  // same fixed one, which a server just stopped may still hold for a moment).
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? freePort();
    const proc = Bun.spawn([bin, "--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no",
      "--dir", dir, "--logfile", log, "--daemonize", "no", "--requirepass", password], { cwd: dir, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    const guard = watchdog(dir, ["kill", "-9", String(proc.pid)]);
    const stopNow = () => {
      guard.kill();
      proc.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    };
    track(dir, stopNow);
    const url = `redis://:${password}@127.0.0.1:${port}`;
    try {
      await pollUntil(`redis-server on 127.0.0.1:${port} (PING, ${timeoutMs} ms)`, deadline, async () => {
        const client = new RedisClient(url, { autoReconnect: false, connectionTimeout: 1000, enableOfflineQueue: false });
        try {
          await client.connect();
          return (await client.ping()) === "PONG";
        } finally {
          client.close();
        }
      }, () => (proc.exitCode !== null ? `exited ${proc.exitCode}` : null));
    } catch (err) {
      const text = tail(log);
      guard.kill();
      proc.kill("SIGKILL");
      await proc.exited;
      running.delete(dir);
      if (attempt < (options.port ? 20 : 3) && /address already in use/i.test(text) && performance.now() < deadline) continue;
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`${err instanceof Error ? err.message : String(err)}\nredis log:\n${text}`);
    }
    return {
      url, port, dir, password,
      async stop() {
        if (!running.delete(dir)) return;
        guard.kill();
        proc.kill("SIGTERM");
        await proc.exited;
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
}

/** As root, PostgreSQL's commands run as the `postgres` user (it refuses root), via setpriv, which execs. */
function ownerOf(): { prefix: string[]; uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(new TextDecoder().decode(Bun.spawnSync(["id", flag, "postgres"]).stdout).trim());
  const uid = id("-u");
  const gid = id("-g");
  if (!Number.isInteger(uid) || uid <= 0) throw new Error("running as root and no `postgres` user to run PostgreSQL as: run `make services`");
  return { prefix: ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"], uid, gid };
}

/** A throwaway PostgreSQL 15 cluster: initdb into a temp dir, fsync off, a private socket
 * directory, 127.0.0.1 only, password (SCRAM) auth over TCP, and one database created. */
export async function startPostgres(options: ServiceOptions = {}): Promise<PostgresService> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = performance.now() + timeoutMs;
  const bins = { initdb: binary("initdb", [PG_BIN]), pgCtl: binary("pg_ctl", [PG_BIN]), postgres: binary("postgres", [PG_BIN]) };
  const owner = ownerOf();
  const as = (cmd: string[]) => [...(owner?.prefix ?? []), ...cmd];
  const dir = mkdtempSync(join(tmpdir(), "gw-pg-"));
  const data = join(dir, "data");
  const sockets = join(dir, "sockets");
  const log = join(dir, "postgres.log");
  const user = "gw";
  const password = randomPassword();
  const database = "gw_test";
  mkdirSync(sockets);
  writeFileSync(join(dir, "pwfile"), password, { mode: 0o600 });
  writeFileSync(log, "");
  if (owner) for (const path of [dir, sockets, join(dir, "pwfile"), log]) chownSync(path, owner.uid, owner.gid);
  let proc: ReturnType<typeof Bun.spawn> | null = null;
  const pgStop = as([bins.pgCtl, "-D", data, "-m", "immediate", "-w", "-t", "10", "stop"]);
  const guard = watchdog(dir, pgStop);
  const stopNow = () => {
    guard.kill();
    if (proc && proc.exitCode === null) {
      const r = Bun.spawnSync(pgStop, { cwd: dir });
      if (r.exitCode !== 0) proc.kill("SIGKILL");
    }
    rmSync(dir, { recursive: true, force: true });
  };
  track(dir, stopNow);
  try {
    await runBounded(as([bins.initdb, "-D", data, "-U", user, `--pwfile=${join(dir, "pwfile")}`, "--auth-local=trust",
      "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"]), "initdb", deadline, dir);
    // Last setting wins: these override the generated file's defaults.
    appendFileSync(join(data, "postgresql.conf"), [
      "listen_addresses = '127.0.0.1'", `unix_socket_directories = '${sockets}'`, "fsync = off",
      "synchronous_commit = off", "full_page_writes = off", "max_connections = 50", "shared_buffers = 16MB", "",
    ].join("\n"));
    for (let attempt = 1; ; attempt++) {
      const port = freePort();
      // The postmaster itself is the child (setpriv execs), so an early exit is seen at once.
      proc = Bun.spawn(as([bins.postgres, "-D", data, "-p", String(port)]), { cwd: dir, stdin: "ignore", stdout: "ignore", stderr: Bun.file(log) });
      const admin = `postgres://${user}:${password}@127.0.0.1:${port}/postgres`;
      const exited = proc.exited;
      try {
        await pollUntil(`postgres on 127.0.0.1:${port} (SELECT 1, ${timeoutMs} ms)`, deadline, async () => {
          const sql = new SQL({ url: admin, max: 1, connectionTimeout: 2 });
          try {
            return (await sql`SELECT 1 AS one`)[0]?.one === 1;
          } finally {
            await sql.close({ timeout: 0 });
          }
        }, () => (proc?.exitCode !== null ? `exited ${proc?.exitCode}` : null));
      } catch (err) {
        proc.kill("SIGKILL");
        await exited;
        const text = tail(log);
        if (attempt < 3 && /address already in use|could not bind/i.test(text) && performance.now() < deadline) continue;
        throw new Error(`${err instanceof Error ? err.message : String(err)}\npostgres log:\n${text}`);
      }
      const sql = new SQL({ url: admin, max: 1, connectionTimeout: 5 });
      try {
        await sql.unsafe(`CREATE DATABASE ${database}`);
      } finally {
        await sql.close();
      }
      let serving = exited;
      return {
        url: `postgres://${user}:${password}@127.0.0.1:${port}/${database}`, port, dir, database, user, password,
        async down() {
          await runBounded(as([bins.pgCtl, "-D", data, "-m", "fast", "-w", "-t", "30", "stop"]), "pg_ctl stop", performance.now() + 35_000, dir);
          await serving;
        },
        async up() {
          proc = Bun.spawn(as([bins.postgres, "-D", data, "-p", String(port)]), { cwd: dir, stdin: "ignore", stdout: "ignore", stderr: Bun.file(log) });
          serving = proc.exited;
          await pollUntil(`postgres on 127.0.0.1:${port} again`, performance.now() + timeoutMs, async () => {
            const sql = new SQL({ url: admin, max: 1, connectionTimeout: 2 });
            try {
              return (await sql`SELECT 1 AS one`)[0]?.one === 1;
            } catch {
              return false;
            } finally {
              await sql.close({ timeout: 0 });
            }
          }, () => (proc?.exitCode !== null ? `exited ${proc?.exitCode}` : null));
        },
        async stop() {
          if (!running.delete(dir)) return;
          guard.kill();
          await runBounded(pgStop, "pg_ctl stop", performance.now() + 15_000, dir)
            .catch(() => proc?.kill("SIGKILL"));
          await serving;
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
  } catch (err) {
    running.delete(dir);
    stopNow();
    throw err;
  }
}

/** One redis-server for a test file: started before its tests and stopped after them, with every
 * client made by `client()`; `prefix(name)` gives each store under test a key space of its own. */
export function redisForFile(): { client: (url?: string) => RedisClient; keySpace: (name: string) => string } {
  let redis: Service | undefined;
  const clients: RedisClient[] = [];
  let run = 0;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await redis?.stop();
  });
  return {
    client: (url?: string) => {
      const c = new RedisClient(url ?? redis!.url);
      clients.push(c);
      return c;
    },
    keySpace: (name: string) => `${name}${run++}:`,
  };
}
