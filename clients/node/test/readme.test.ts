// "A script written only from the README runs unchanged": the README's example script, installed
// the README's way (`npm install ./clients/node`) into a scratch project, run with node against a real gw.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestGw, startTestGw } from "../../../test/helpers/test-gw.ts";

const root = join(import.meta.dir, "..");
let gw: TestGw;
let dir: string;

beforeAll(async () => {
  gw = await startTestGw();
  dir = mkdtempSync(join(tmpdir(), "gw-client-readme-"));
});
afterAll(async () => {
  await gw.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The last ```js block of the README's "Example script" section. */
function exampleScript(): string {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Example script"));
  const blocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
  const script = blocks.at(-1);
  if (!script) throw new Error("README.md has no example script");
  return script;
}

/** Runs a command without blocking this process (gw serves from it). */
async function run(cmd: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  const proc = Bun.spawn(cmd, { cwd: dir, stdout: "pipe", stderr: "pipe", env: { ...process.env, npm_config_update_notifier: "false", ...env } });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out: `${stdout}${stderr}` };
}

const repo = join(root, "..", "..");

/** A TypeScript user's file: the package's exports and types as a NodeNext project resolves them. */
const CONSUMER = `import { Gw, GwError, RateLimitedError, VERSION, type ChatCompletion, type RequestPage } from "gw-client";
const gw = new Gw({ apiKey: "k", maxRetries: 1 });
const completion: ChatCompletion = await gw.chat.completions.create({ messages: [{ role: "user", content: "hi" }] }, { traceId: "t" });
const cost: number = completion.gw.cost;
const stream = await gw.chat.completions.create({ messages: [{ role: "user", content: "hi" }], stream: true });
for await (const chunk of stream) console.log(chunk.choices[0]?.delta.content);
const page: RequestPage = await gw.requests.list({ limit: 5 });
for await (const entry of gw.requests.iterate({ traceId: "t" })) console.log(entry.request_id);
try { await gw.metrics.get({ period: "1h" }); } catch (err) { if (err instanceof RateLimitedError) console.log(err.code, err.requestId); }
const isError: boolean = new GwError("x") instanceof Error;
console.log(VERSION, cost, page.hasMore, isError);
`;

test("a TypeScript project (NodeNext, strict, no skipLibCheck) typechecks against the installed package", async () => {
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "readme-example", private: true, type: "module" }));
  expect((await run(["npm", "install", "--no-audit", "--no-fund", "--offline", root])).code).toBe(0);
  writeFileSync(join(dir, "consumer.ts"), CONSUMER);
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2022", "DOM", "DOM.Iterable"], types: [], strict: true, noEmit: true, skipLibCheck: false },
    files: ["consumer.ts"],
  }));
  const { code, out } = await run(["node", join(repo, "node_modules", "typescript", "bin", "tsc"), "-p", "."]);
  expect(out).toBe("");
  expect(code).toBe(0);
});

test("the README's example script runs unchanged with node after npm install ./clients/node", async () => {
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "readme-example", private: true, type: "module" }));
  const install = await run(["npm", "install", "--no-audit", "--no-fund", "--offline", root]);
  expect(install.code).toBe(0);
  writeFileSync(join(dir, "example.mjs"), exampleScript());
  const { code, out } = await run(["node", "example.mjs"], { GW_API_KEY: gw.testKey, GW_BASE_URL: gw.url });
  expect(out).toContain("chat: ");
  expect(out).toContain("stream: ");
  expect(out).toMatch(/logged: req_\S+/);
  expect(out).toContain("feedback: 5");
  expect(out).toMatch(/metrics: \d+ requests/);
  expect(out).toContain("caught: rate_limited 429");
  expect(code).toBe(0);
});
