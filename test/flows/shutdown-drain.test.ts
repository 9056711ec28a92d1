// SIGTERM on a real `gw serve` process (docs/availability.md "Shutdown"): readiness fails first, a
// request in flight finishes within GW_SHUTDOWN_TIMEOUT_S and is logged; one still waiting on its
// upstream past the bound is cut in the envelope, and the process still exits 0.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject } from "../../src/admin/projects.ts";
import { issueKey } from "../../src/auth/api-keys.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { createApp } from "../../src/http/app.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { startServer } from "../../src/server.ts";
import { openDatabase } from "../../src/store/db.ts";
import { apiKeysRepo } from "../../src/store/repos/api-keys.ts";
import { projectsRepo } from "../../src/store/repos/projects.ts";
import { startHostileUpstream, type HostileUpstream } from "../helpers/scripted-hostile.ts";
import { envFor, freePort, killAll, ROOT, Served } from "../helpers/served.ts";
import { waitFor } from "../helpers/wait-for.ts";

let up: HostileUpstream;
const dirs: string[] = [];
beforeAll(async () => {
  up = await startHostileUpstream();
});
afterAll(async () => {
  await killAll();
  await up.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const chunk = (delta: Record<string, unknown>, finish: string | null, usage?: Record<string, number>) =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;

/** A data directory holding a project and a live key (so gw prints no first-run banner). */
function seeded(): { dir: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "gw-shutdown-flow-"));
  dirs.push(dir);
  const db = openDatabase(dir);
  try {
    const projectId = createProject(projectsRepo(db), { name: "p" }).id;
    return { dir, key: issueKey(apiKeysRepo(db), { projectId, mode: "live" }).secret };
  } finally {
    db.close();
  }
}

async function serve(dir: string, graceSeconds: string): Promise<{ gw: Served; origin: string }> {
  const gw = new Served(dir, { env: { OPENAI_API_KEY: "sk-drain", OPENAI_BASE_URL: up.url, GW_SEMANTIC_EMBEDDER: "off", GW_SHUTDOWN_TIMEOUT_S: graceSeconds } });
  const origin = gw.url.replace(/\/v1$/, "");
  await waitFor(async () => (await fetch(`${origin}/readyz`).catch(() => null))?.status === 200, { timeoutMs: 60_000, what: "gw /readyz 200" });
  return { gw, origin };
}

const ask = (url: string, key: string, stream: boolean) =>
  fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "x-gw-cache": "off" },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "take your time" }], stream }),
  });

/** Ready means a 200 from /readyz; a 503 or a refused connection are both "not ready" to a balancer. */
const readyStatus = (origin: string) => fetch(`${origin}/readyz`).then((r) => r.status, () => 0);

function rows(dir: string) {
  const db = openDatabase(dir);
  try {
    return db.query<{ status: number; error_code: string | null; stream: number }, []>("SELECT status, error_code, stream FROM requests ORDER BY stream").all();
  } finally {
    db.close();
  }
}

describe("SIGTERM on gw serve", () => {
  test("readiness fails first; a stream in flight finishes within the bound, is logged, and the process exits 0", async () => {
    const { dir, key } = seeded();
    const { gw, origin } = await serve(dir, "30");
    const gate = Promise.withResolvers<void>();
    up.script({ kind: "gated-stream", before: [chunk({ role: "assistant", content: "half" }, null)], gate: gate.promise, after: [
      chunk({ content: " and done" }, null), chunk({}, "stop", { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }), "data: [DONE]\n\n",
    ] });
    const res = await ask(gw.url, key, true);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("half")) text += decoder.decode((await reader.read()).value, { stream: true });

    gw.proc.kill("SIGTERM");
    // Not ready while the stream is still held open upstream.
    await waitFor(async () => (await readyStatus(origin)) !== 200, { timeoutMs: 10_000, what: "/readyz to stop answering 200" });
    expect(gw.proc.exitCode).toBeNull();
    const late = await ask(gw.url, key, false).then((r) => r.status, () => 0);
    expect(late).not.toBe(200);

    gate.resolve();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toContain(" and done");
    expect(text).toContain("data: [DONE]");
    expect(await gw.proc.exited).toBe(0);
    expect(rows(dir)).toEqual([{ status: 200, error_code: null, stream: 1 }]);
  });

  test("past GW_SHUTDOWN_TIMEOUT_S a request still waiting is cut with 503 service_unavailable, logged, and the process exits 0", async () => {
    const { dir, key } = seeded();
    const { gw } = await serve(dir, "1");
    up.script({ kind: "hang" }, 1);
    const aborted = up.aborted;
    const calls = up.paths.length;
    const pending = ask(gw.url, key, false).then(async (r) => ({ status: r.status, body: await r.text() }));
    await waitFor(() => up.paths.length > calls, { timeoutMs: 10_000, what: "the upstream call" });
    gw.proc.kill("SIGTERM");
    const answer = await pending;
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body).error).toMatchObject({ code: "service_unavailable", type: "api_error" });
    await up.abortedAt(aborted + 1);
    expect(await gw.proc.exited).toBe(0);
    expect(gw.stdout).toContain("requests still running after the grace period were aborted");
    expect(rows(dir)).toEqual([{ status: 503, error_code: "service_unavailable", stream: 0 }]);
  });

  test("GW_SHUTDOWN_TIMEOUT_S that is not a number of seconds: refused at start with a non-zero exit", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gw-shutdown-flow-"));
    dirs.push(dir);
    for (const bad of ["soon", "-1"]) {
      const proc = Bun.spawn(["bun", "run", "src/main.ts", "serve", "--port", String(freePort()), "--data", dir], {
        cwd: ROOT, env: envFor(dir, { GW_SHUTDOWN_TIMEOUT_S: bad }), stdout: "pipe", stderr: "pipe",
      });
      const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
      expect(code).not.toBe(0);
      expect(stderr).toContain(`Invalid GW_SHUTDOWN_TIMEOUT_S "${bad}"`);
    }
  });

  test("in one process: from the stop on /readyz answers 503 shutting down while the stream is still running", async () => {
    const { dir, key } = seeded();
    const config = loadConfig({ port: "0", data: dir }, { OPENAI_API_KEY: "sk-drain", OPENAI_BASE_URL: up.url, GW_SEMANTIC_EMBEDDER: "off", GW_STORAGE_RESERVE_MB: "1" });
    const deps = buildDeps(config, { logger: createLogger("silent") });
    const server = startServer(config, { deps, quiet: true });
    const app = createApp(deps, server.lifecycle);
    const readyz = async () => (await (await app.handle(new Request("http://localhost/readyz"))).json()) as { status: string; reasons?: string[] };
    await waitFor(async () => (await readyz()).status === "ready", { what: "ready" });
    const gate = Promise.withResolvers<void>();
    up.script({ kind: "gated-stream", before: [], gate: gate.promise, after: [chunk({ role: "assistant", content: "late" }, "stop"), "data: [DONE]\n\n"] });
    const calls = up.paths.length;
    const pending = ask(server.url, key, true).then((r) => r.text());
    await waitFor(() => up.paths.length > calls, { what: "the upstream call" });
    const stopped = server.stop();
    expect(await readyz()).toEqual({ status: "unavailable", reasons: ["shutting down"] });
    expect(server.lifecycle.inFlight.size).toBe(1);
    gate.resolve();
    expect(await pending).toContain('"content":"late"');
    await stopped;
  });
});
