// The compiled gw for browser tests: built once per source state into a temp directory (never racing
// `make build` over dist/gw), started from an empty directory on a free 127.0.0.1 port, stopped by
// SIGTERM then SIGKILL. GW_TEST_BINARY names a prebuilt binary instead.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { waitFor } from "./wait-for.ts";

const ROOT = resolve(import.meta.dir, "../..");
/** A strong-enough admin token (gw refuses ones under 32 characters). */
export const ADMIN_TOKEN = "browser-test-admin-token-0123456789abcdef";
const BIN_PREFIX = "gw-browser-bin-";
/** Written by the build itself from src/dashboard/ui (which is hashed), so not part of the stamp. */
const GENERATED = "src/dashboard/generated-assets.ts";

let built: Promise<string> | null = null;

/** A hash of every source file's path, size and mtime: a binary built from them is reused. */
function sourceStamp(): string {
  const hash = new Bun.CryptoHasher("sha256");
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (relative(ROOT, path) !== GENERATED) {
        const st = statSync(path);
        hash.update(`${relative(ROOT, path)}:${st.size}:${st.mtimeMs}\n`);
      }
    }
  };
  for (const dir of ["src", "scripts"]) walk(join(ROOT, dir));
  for (const file of ["package.json", "bun.lock"]) hash.update(`${file}:${statSync(join(ROOT, file)).mtimeMs}\n`);
  return hash.digest("hex").slice(0, 16);
}

/** scripts/build.ts run in a mirror of the repository (sources linked, scripts and dist its own). */
async function build(): Promise<string> {
  const target = join(tmpdir(), BIN_PREFIX + sourceStamp());
  if (existsSync(join(target, "gw"))) return join(target, "gw");
  const mirror = mkdtempSync(join(tmpdir(), "gw-browser-build-"));
  try {
    for (const name of readdirSync(ROOT)) {
      if (name === "dist" || name === ".git") continue;
      // scripts/ is copied so a script that finds the root from its own path finds the mirror.
      if (name === "scripts") cpSync(join(ROOT, name), join(mirror, name), { recursive: true });
      else symlinkSync(join(ROOT, name), join(mirror, name));
    }
    mkdirSync(join(mirror, "dist"));
    const run = Bun.spawn(["bun", "run", "scripts/build.ts"], { cwd: mirror, stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
    if (code !== 0) throw new Error(`scripts/build.ts failed (${code}):\n${out}\n${err}`);
    // Another test process may have built the same sources meanwhile: either binary will do.
    try { renameSync(join(mirror, "dist"), target); } catch { if (!existsSync(join(target, "gw"))) throw new Error(`could not move the build to ${target}`); }
  } finally {
    rmSync(mirror, { recursive: true, force: true });
  }
  // Binaries of older sources are dropped once unused for a while (a running one keeps its inode).
  for (const name of readdirSync(tmpdir())) {
    const path = join(tmpdir(), name);
    if (name.startsWith(BIN_PREFIX) && path !== target && Date.now() - statSync(path).mtimeMs > 600_000) rmSync(path, { recursive: true, force: true });
  }
  return join(target, "gw");
}

/** The path of a compiled gw, built at most once per test process and per source state. */
export async function gwBinary(): Promise<string> {
  const given = process.env.GW_TEST_BINARY;
  if (given) return resolve(given);
  let path = await (built ??= build().catch((err) => { built = null; throw err; }));
  // Another process may have pruned it (unused 10 minutes): build again.
  if (!existsSync(path)) path = await (built = build());
  // Marks it in use, so no other process prunes it while this one starts it.
  const now = new Date();
  utimesSync(dirname(path), now, now);
  return path;
}

export interface GwProcess {
  /** http://127.0.0.1:PORT (no path). */
  origin: string;
  port: number;
  /** The directory it runs in; its data is in `<dir>/data`. */
  dir: string;
  adminToken: string;
  /** The first-run test key from the banner; null when the directory already held a project. */
  testKey: string | null;
  /** Everything it printed on stdout so far. */
  output(): string;
  /** SIGTERM, then SIGKILL after 15 s; resolves with the exit code. Deletes the directory unless
   * the caller gave it. */
  stop(): Promise<number>;
}

export interface StartOptions {
  /** Run in this directory (reusing its data) instead of a new empty one. */
  dir?: string;
  env?: Record<string, string>;
}

/** Starts the compiled gw and resolves once /readyz answers 200. */
export async function startGwBinary(options: StartOptions = {}): Promise<GwProcess> {
  const binary = await gwBinary();
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "gw-browser-run-"));
  const proc = Bun.spawn([binary, "serve", "--host", "127.0.0.1", "--port", "0"], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GW_ADMIN_TOKEN: ADMIN_TOKEN, GW_SHUTDOWN_TIMEOUT_S: "2", ...options.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const kill = () => proc.kill("SIGKILL");
  let out = "";
  let err = "";
  // Both pipes are drained for the whole run so a chatty log never blocks the server.
  const drain = async (stream: ReadableStream<Uint8Array>, add: (s: string) => void) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) add(decoder.decode(chunk, { stream: true }));
  };
  void drain(proc.stdout, (s) => (out += s));
  void drain(proc.stderr, (s) => (err += s));

  let port = 0;
  try {
    await waitFor(() => {
      if (proc.exitCode !== null) throw new Error(`gw exited with ${proc.exitCode}:\n${out}\n${err}`);
      // The "gw listening" log line (or the first-run banner's Dashboard line) names the port.
      const m = out.match(/(?:"url":"|Dashboard: )http:\/\/127\.0\.0\.1:(\d+)/);
      if (m) port = Number(m[1]);
      return port > 0;
    }, { timeoutMs: 60_000, what: "gw to print its listening address" });
    const origin = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${origin}/readyz`).catch(() => null))?.status === 200, { timeoutMs: 30_000, what: "gw /readyz" });
  } catch (e) {
    kill();
    await proc.exited;
    if (!options.dir) rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const origin = `http://127.0.0.1:${port}`;
  let stopped: Promise<number> | null = null;
  return {
    origin,
    port,
    dir,
    adminToken: ADMIN_TOKEN,
    testKey: out.match(/gw_test_[0-9a-z]{40}/)?.[0] ?? null,
    output: () => out,
    stop: () =>
      (stopped ??= (async () => {
        proc.kill("SIGTERM");
        let code = await Promise.race([proc.exited, Bun.sleep(15_000).then(() => null)]);
        if (code === null) {
          kill();
          code = await proc.exited;
        }
        if (!options.dir) rmSync(dir, { recursive: true, force: true });
        return code;
      })()),
  };
}
