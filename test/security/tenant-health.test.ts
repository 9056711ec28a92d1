// Tenant-local provider health (issue 15 item 2): a project's own (BYOK) endpoint that keeps failing
// opens only that project's circuit; every other project keeps reaching the same provider with the
// operator's key. Through the real server and two scripted upstreams.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ProviderHealth } from "../../src/routing/health.ts";
import type { ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../helpers/start-gw.ts";
import { ADMIN_TOKEN, post, type TestGw } from "../helpers/test-gw.ts";

let operatorUpstream: ScriptedUpstream;
let brokenUpstream: ScriptedUpstream;
let gw: TestGw;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ gw, upstreams: { openai: operatorUpstream }, spare: { brokenUpstream }, stop } = await startGw({
    upstreams: { openai: openaiUpstream({}, "sk-operator-0000000000") }, spare: { brokenUpstream: openaiUpstream() },
  }));
});
afterAll(() => stop());

const putKey = (project: string, baseUrl: string) =>
  fetch(`${gw.url}/admin/projects/${project}/provider-keys/openai`, {
    method: "PUT",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ api_key: "sk-tenant-own-2222222222", base_url: baseUrl }),
  });
const chat = (key: string, text: string) =>
  post(`${gw.url}/chat/completions`, key, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: text }] }, { "x-gw-cache": "off" });
const openShared = () => gw.deps.health.snapshot().filter((s) => s.state !== "closed");

test("a BYOK endpoint answering 5xx opens only its project's circuit; other projects keep answering 200", async () => {
  const tenant = gw.newProject("byok-broken");
  const other = gw.newProject("operator-keyed");
  expect((await putKey(tenant, brokenUpstream.url)).status).toBe(200);
  const tenantKey = gw.key({ mode: "live", projectId: tenant, scopes: ["chat"] });
  const otherKey = gw.key({ mode: "live", projectId: other, scopes: ["chat"] });
  brokenUpstream.script({ status: 500 }, 1_000);

  // Until the tenant's own circuit opens: then its requests are refused without reaching its endpoint.
  let circuitOpen = false;
  for (let i = 0; i < 30 && !circuitOpen; i++) {
    const before = brokenUpstream.callCount();
    const res = await chat(tenantKey, `tenant ${i}`);
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(res.headers.get("x-gw-api-version")).not.toBeNull();
    circuitOpen = brokenUpstream.callCount() === before;
  }
  expect(circuitOpen).toBe(true);
  expect(gw.deps.health.admit("openai", "openai/gpt-4o-mini").ok).toBe(true);
  expect(openShared()).toEqual([]);

  const served = operatorUpstream.callCount();
  for (let i = 0; i < 5; i++) expect((await chat(otherKey, `other ${i}`)).status).toBe(200);
  expect(operatorUpstream.callCount()).toBe(served + 5);
  expect(openShared()).toEqual([]);

  // The tenant's circuit is its credential's: a new key (here a healthy endpoint) starts fresh.
  expect((await putKey(tenant, operatorUpstream.url)).status).toBe(200);
  expect((await chat(tenantKey, "tenant fixed")).status).toBe(200);
});

test("ProviderHealth: a credential's outcomes open only its own circuit, bounded apart from the shared keys", () => {
  const health = new ProviderHealth({ openAfterFailures: 3, maxKeys: 4 });
  for (let i = 0; i < 3; i++) health.record("openai", "gpt-4o-mini", { ok: false, failureClass: "transient" }, false, "byok:prj_a:openai:1");
  expect(health.admit("openai", "gpt-4o-mini", "byok:prj_a:openai:1").ok).toBe(false);
  expect(health.score("openai", "gpt-4o-mini", "byok:prj_a:openai:1")).toBe(0);
  expect(health.admit("openai", "openai/gpt-4o-mini").ok).toBe(true);
  expect(health.admit("openai", "gpt-4o-mini", "byok:prj_b:openai:2").ok).toBe(true);
  expect(health.score("openai", "gpt-4o-mini")).toBe(1);
  expect(health.snapshot()).toEqual([]);
  // Many tenants' credentials never evict the shared keys.
  health.record("openai", "gpt-4o-mini", { ok: false, failureClass: "transient" });
  for (let i = 0; i < 50; i++) health.record("openai", "gpt-4o-mini", { ok: true, latencyMs: 5 }, false, `byok:prj_${i}:openai:x`);
  expect(health.snapshot().map((s) => s.key)).toEqual(["openai", "openai/gpt-4o-mini"]);
});
