// CORS in a real browser (docs/api.md "CORS"): headless chromium on a page of another origin calls
// gw with the openai and Anthropic SDKs; an allowed origin reads the answer and gw's headers, another is refused.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { join } from "node:path";
import { launchBrowser } from "../helpers/browser.ts";
import { startTestGw, type TestGw } from "../helpers/test-gw.ts";

const HOOK_MS = 240_000;
const TEST_MS = 90_000;

let gw: TestGw;
let browser: Browser;
let allowed: ReturnType<typeof Bun.serve>;
let other: ReturnType<typeof Bun.serve>;

/** A page server: an HTML page loading the bundled SDK script. */
function pageServer(script: string): ReturnType<typeof Bun.serve> {
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => new URL(req.url).pathname === "/page.js"
      ? new Response(script, { headers: { "content-type": "text/javascript" } })
      : new Response(`<!doctype html><title>page</title><script src="/page.js"></script>`, { headers: { "content-type": "text/html" } }),
  });
}

beforeAll(async () => {
  const built = await Bun.build({ entrypoints: [join(import.meta.dir, "cors-page.ts")], target: "browser" });
  const [output] = built.outputs;
  if (!built.success || !output) throw new Error(built.logs.join("\n"));
  const script = await output.text();
  allowed = pageServer(script);
  other = pageServer(script);
  const [started, launched] = await Promise.all([startTestGw({ GW_CORS_ORIGINS: `http://127.0.0.1:${allowed.port}` }), launchBrowser()]);
  gw = started;
  browser = launched;
}, HOOK_MS);

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  allowed?.stop(true);
  other?.stop(true);
}, 60_000);

interface Seen {
  model?: string;
  gwModel?: string | null;
  requestId?: string | null;
  error?: string;
}

async function runOn(server: ReturnType<typeof Bun.serve>, fn = "gwRun", base = gw.url): Promise<Seen> {
  const page = await browser.newPage();
  try {
    await page.goto(`http://127.0.0.1:${server.port}/`);
    await page.waitForFunction(`typeof window.${fn} === 'function'`);
    return (await page.evaluate(`window.${fn}(${JSON.stringify(base)}, ${JSON.stringify(gw.testKey)})`)) as Seen;
  } finally {
    await page.close();
  }
}

test("the allowed origin: the SDK's preflighted call answers, and the page reads X-Gw-Model and X-Gw-Request-Id", async () => {
  const seen = await runOn(allowed);
  expect(seen.error).toBeUndefined();
  expect(seen.model).toMatch(/\//);
  expect(seen.gwModel).toBe(seen.model ?? "");
  expect(seen.requestId).toMatch(/^req_/);
}, TEST_MS);

test("the allowed origin: the Anthropic SDK (x-api-key, anthropic-* headers) reads the message and its request-id", async () => {
  const seen = await runOn(allowed, "gwRunAnthropic", gw.url.replace(/\/v1$/, ""));
  expect(seen.error).toBeUndefined();
  expect(seen.model).toMatch(/\//);
  expect(seen.gwModel).toBe(seen.model ?? "");
  expect(seen.requestId).toMatch(/^req_/);
}, TEST_MS);

test("another origin: the browser refuses the call", async () => {
  const seen = await runOn(other);
  expect(seen.error).toMatch(/Connection error|fetch/i);
}, TEST_MS);
