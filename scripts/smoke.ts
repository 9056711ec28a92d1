// Smoke test of the compiled binary: copies dist/gw into an empty temp dir, starts it there, reads
// the first-run test key it prints, makes one chat completion through the official openai SDK
// (plain and streamed), a semantic cache hit (the sentence model inside the binary), runs `gw doctor`
// there, then stops it with SIGTERM and checks the requests reached the log.
import { Database } from "bun:sqlite";
import OpenAI from "openai";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const dir = mkdtempSync(join(tmpdir(), "gw-smoke-"));
const binary = join(dir, "gw");
copyFileSync(resolve("dist/gw"), binary);
// The native addon, SQLite migrations, tokenizer and catalog must all work inside the binary.
const doctorRun = Bun.spawnSync([binary, "doctor"], { cwd: dir, env: { PATH: "/usr/bin:/bin", HOME: dir } });
if (doctorRun.exitCode !== 0) {
  console.error("smoke: dist/gw doctor failed\n" + doctorRun.stdout.toString() + doctorRun.stderr.toString());
  process.exit(1);
}
const port = 20000 + Math.floor(Math.random() * 20000);
const ADMIN = "smoke-admin-token-0123456789abcdef";
const proc = Bun.spawn([binary, "serve", "--port", String(port)], {
  cwd: dir,
  env: { PATH: "/usr/bin:/bin", HOME: dir, GW_LOG_LEVEL: "warn", GW_ADMIN_TOKEN: ADMIN },
  stdout: "pipe",
  stderr: "inherit",
});

async function readKey(): Promise<string> {
  const reader = proc.stdout.getReader();
  let text = "";
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
    const match = text.match(/gw_test_[0-9a-z]{40}/);
    if (match) return match[0];
  }
  throw new Error(`dist/gw did not print a test key; output was:\n${text}`);
}

/** A project with the semantic cache on; a question, then the same question in other words. The
 * model loads on first use, so a paraphrase that misses while it loads is followed by another. */
async function semanticHit(): Promise<number> {
  const admin = (path: string, body: unknown) =>
    fetch(`http://127.0.0.1:${port}/v1/admin${path}`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<{ id: string; key: string }>);
  const project = await admin("/projects", { name: "smoke-semantic", policy: { semantic_cache: true } });
  const { key } = await admin(`/projects/${project.id}/keys`, { mode: "test" });
  const client = new OpenAI({ apiKey: key, baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
  const ask = (content: string) => client.chat.completions.create({ model: "gw-auto", messages: [{ role: "user", content }] }) as Promise<{ gw?: { cache: string | null; similarity?: number } }>;
  await ask("How do I install the command line tool on Linux?");
  for (const paraphrase of ["How can I install the command line tool on Linux?", "How do I install the command-line tool on Linux?", "How would I install the command line tool on Linux?"]) {
    await Bun.sleep(500);
    const answer = await ask(paraphrase);
    if (answer.gw?.cache === "semantic") return answer.gw.similarity ?? 0;
  }
  throw new Error("no semantic hit from dist/gw");
}

/** A large safe-mode request goes through the token engine's worker (an entry point of the binary):
 * its trace must show json_minify applied. The log is written off the request thread: poll for it. */
async function optimizedInWorker(client: OpenAI, key: string): Promise<number> {
  const rows = Array.from({ length: 120 }, (_, i) => ({ id: 1000 + i, sku: `SKU-${i}`, status: i % 3 ? "shipped" : "pending", total: i * 3.25 }));
  const content = `Which orders are pending?\n${JSON.stringify({ orders: rows }, null, 2)}`;
  const body = { model: "gw-auto", messages: [{ role: "user", content }], optimization: { mode: "safe" } };
  const answer = (await client.chat.completions.create(body as Parameters<typeof client.chat.completions.create>[0])) as unknown as { gw: { request_id: string } };
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const res = await fetch(`http://127.0.0.1:${port}/v1/requests/${answer.gw.request_id}`, { headers: { authorization: `Bearer ${key}` } });
    if (res.status === 200) {
      const detail = (await res.json()) as { trace?: { optimization?: { original_tokens: number; final_tokens: number; stages: Array<{ name: string; applied: boolean }> } } };
      const o = detail.trace?.optimization;
      if (!o || o.stages[0]?.name !== "json_minify" || !o.stages[0].applied) throw new Error(`optimisation not applied: ${JSON.stringify(o)}`);
      return o.original_tokens - o.final_tokens;
    }
    await Bun.sleep(200);
  }
  throw new Error("the optimised request never reached the log");
}

let failed = 0;
try {
  const key = await readKey();
  const client = new OpenAI({ apiKey: key, baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
  const completion = await client.chat.completions.create({ model: "gw-auto", messages: [{ role: "user", content: "Hello!" }] });
  if (!completion.choices[0]?.message.content) throw new Error("empty completion");
  let streamed = "";
  const stream = await client.chat.completions.create({ model: "gw-auto", stream: true, messages: [{ role: "user", content: "Hi" }] });
  for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? "";
  if (!streamed) throw new Error("empty stream");
  console.log(`smoke: dist/gw answered from an empty directory (${completion.model}, ${completion.usage?.total_tokens} tokens)`);
  console.log(`smoke: semantic hit from the binary's own sentence model (similarity ${await semanticHit()})`);
  console.log(`smoke: a large safe-mode request optimised in the binary's engine worker (${await optimizedInWorker(client, key)} tokens saved)`);
} catch (err) {
  failed = 1;
  console.error("smoke: FAILED", err);
} finally {
  proc.kill("SIGTERM");
  // A binary that does not stop on SIGTERM fails the smoke test instead of hanging CI.
  const code = await Promise.race([proc.exited, Bun.sleep(15_000).then(() => (proc.kill("SIGKILL"), -1))]);
  if (code !== 0 && failed === 0) {
    failed = 1;
    console.error(`smoke: dist/gw exited with ${code} on SIGTERM`);
  }
  // Every request answered must be in the request log after the shutdown flush.
  if (failed === 0) {
    const db = new Database(join(dir, "data", "gw.sqlite"), { readonly: true });
    const rows = db.query<{ n: number }, []>("SELECT count(*) AS n FROM requests WHERE status = 200").get()?.n ?? 0;
    db.close();
    if (rows < 2) {
      failed = 1;
      console.error(`smoke: expected 2 logged requests after shutdown, found ${rows}`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed);
