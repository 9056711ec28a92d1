// The dashboard of a multi-instance gw in headless chromium (docs/scale-out.md "Dashboard and audit
// log"): two instances on one PostgreSQL and one Redis; a request served by one is listed on the
// Requests page of the other, signed in through that other's sign-in page.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { launchBrowser, signIn, watchedPage } from "../helpers/browser.ts";
import { json } from "../helpers/expect-json.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startPostgres, startRedis, type PostgresService, type Service } from "../helpers/services.ts";
import { startSharedInstance, type SharedInstance } from "../helpers/shared-gw.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";
import { ADMIN_TOKEN, post } from "../helpers/test-gw.ts";

let pg: PostgresService;
let redis: Service;
let upstream: ScriptedUpstream;
let browser: Browser;
const instances: SharedInstance[] = [];

beforeAll(async () => {
  [pg, redis, upstream, browser] = await Promise.all([startPostgres(), startRedis(), startScriptedUpstream(), launchBrowser()]);
  for (let n = 0; n < 2; n++) instances.push(await startSharedInstance(pg, redis, upstreamEnv("openai", upstream.url, "sk-browser")));
}, 240_000);
afterAll(async () => {
  await browser?.close();
  for (const i of instances) await i.stop();
  await Promise.all([upstream?.stop(), redis?.stop(), pg?.stop()]);
});

test("a request served by one instance shows on the Requests page of the other", async () => {
  const [a, b] = instances as [SharedInstance, SharedInstance];
  const admin = (method: string, path: string, body: unknown) => fetch(`${a.server.url}/admin${path}`, {
    method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(body),
  });
  const project = await json<{ id: string }>(await admin("POST", "/projects", { name: "browser" }), 201);
  const { key } = await json<{ key: string }>(await admin("POST", `/projects/${project.id}/keys`, { scopes: ["chat", "requests"], mode: "test" }), 201);
  const res = await post(`${a.server.url}/chat/completions`, key, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "Name a river." }], max_tokens: 8 });
  expect(res.status).toBe(200);
  const id = res.headers.get("x-gw-request-id") ?? "";
  expect(id).toStartWith("req_");

  const w = await watchedPage(browser, b.origin);
  try {
    await signIn(w.page, b.origin, key);
    await w.page.getByRole("link", { name: "Requests", exact: true }).click();
    await w.page.getByRole("heading", { level: 1, name: "Requests", exact: true }).waitFor();
    const link = w.page.getByRole("link", { name: id, exact: true });
    await link.waitFor();
    expect(await link.getAttribute("href")).toStartWith(`/requests/${id}`);
    expect(w.foreign).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 120_000);
