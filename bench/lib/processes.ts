// Starts the benchmark's processes (scripted upstream, gw) and waits for them to be ready.
import type { Subprocess } from "bun";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export async function readLineMatching(proc: Subprocess<"ignore", "pipe", "inherit">, pattern: RegExp, ms = 15_000): Promise<RegExpMatchArray> {
  const reader = proc.stdout.getReader();
  let text = "";
  const deadline = Date.now() + ms;
  try {
    while (Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      const match = text.match(pattern);
      if (match) return match;
    }
  } finally {
    reader.releaseLock();
  }
  throw new Error(`process did not print ${pattern}; output:\n${text}`);
}

export async function startUpstream(env: Record<string, string> = {}) {
  const proc = Bun.spawn(["bun", "run", "bench/upstream-server.ts"], { stdout: "pipe", stderr: "inherit", env: { ...process.env, ...env } });
  const [, url] = await readLineMatching(proc, /UPSTREAM (\S+)/);
  return { url: url as string, proc };
}

function cli(dataDir: string, args: string[]): Record<string, unknown> {
  const out = Bun.spawnSync(["bun", "run", "src/main.ts", ...args, "--data", dataDir]);
  if (out.exitCode !== 0) throw new Error(`gw ${args.join(" ")} failed: ${out.stderr.toString()}`);
  return JSON.parse(out.stdout.toString()) as Record<string, unknown>;
}

/** gw with OpenAI pointed at the upstream, a project and a live key made through the CLI. */
export async function startGw(upstreamUrl: string, port: number) {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-bench-"));
  const project = cli(dataDir, ["projects", "create", "--name", "bench"]);
  const live = cli(dataDir, ["keys", "create", "--project", String(project.id)]);
  const test = cli(dataDir, ["keys", "create", "--project", String(project.id), "--test"]);
  const proc = Bun.spawn(["bun", "run", "src/main.ts", "serve", "--port", String(port), "--data", dataDir], {
    stdout: "pipe",
    stderr: "inherit",
    env: { ...process.env, OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: upstreamUrl, GW_LOG_LEVEL: process.env.GW_LOG_LEVEL ?? "info" },
  });
  await waitForHttp(`http://127.0.0.1:${port}/v1/models`);
  // Drain gw's stdout (log lines) so the pipe never blocks it.
  void (async () => { for await (const _ of proc.stdout) { /* discard */ } })();
  return { url: `http://127.0.0.1:${port}/v1`, proc, dataDir, liveKey: String(live.key), testKey: String(test.key) };
}

async function waitForHttp(url: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    try {
      await fetch(url);
      return;
    } catch {
      await Bun.sleep(50);
    }
  }
  throw new Error(`${url} did not come up`);
}
