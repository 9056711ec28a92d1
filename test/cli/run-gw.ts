// `bun run src/main.ts ...` to the end in a chosen working directory, with an environment free of
// the caller's gw variables and provider keys, so what a command creates or reads is the test's own.
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const MAIN = resolve(import.meta.dir, "../../src/main.ts");

export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/_API_KEY$|_BASE_URL$|^GW_|^PORT$|^HOST$/.test(k)) env[k] = v;
  }
  return { ...env, GW_LOG_LEVEL: "warn", ...extra };
}

export interface GwRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runGw(args: string[], options: { cwd: string; env?: Record<string, string>; stdin?: string }): Promise<GwRun> {
  const proc = Bun.spawn(["bun", "run", MAIN, ...args], {
    cwd: options.cwd, env: cleanEnv(options.env), stdout: "pipe", stderr: "pipe",
    stdin: options.stdin === undefined ? "ignore" : new Blob([options.stdin]),
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Runs and parses the JSON printed; a non-zero exit throws with stderr. */
export async function runGwJson<T = Record<string, unknown>>(args: string[], options: { cwd: string; env?: Record<string, string>; stdin?: string }): Promise<T> {
  const r = await runGw(args, options);
  if (r.code !== 0) throw new Error(`gw ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

export const tempDir = (prefix: string): string => mkdtempSync(join(tmpdir(), prefix));
export const entries = (dir: string): string[] => readdirSync(dir).sort();
