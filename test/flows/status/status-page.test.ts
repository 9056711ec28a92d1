// The public status page through a real server (docs/monitoring.md "Status page", "Status posts"):
// traffic counted per component (test mode never a provider's), a failing provider's outage, the
// Statuspage v2 shape, maintenance windows, nothing of a project's ever shown, and the headers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import schema from "../../fixtures/statuspage-v2-summary.schema.json";
import { ManualClock } from "../../../src/lib/clock.ts";
import { admin, ok, type Json } from "../../helpers/admin-api.ts";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../../helpers/start-gw.ts";
import { post, type TestGw } from "../../helpers/test-gw.ts";

const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addFormat("date-time", /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
ajv.addFormat("date", /^\d{4}-\d{2}-\d{2}$/);
ajv.addFormat("uri", /^https?:\/\/\S+$/);
const validate = ajv.compile(schema);

const PROJECT_NAME = "Zanzibar Quokka Holdings";
const PROMPT = "the marmalade ledger of quivering herons";
const HOUR = 3_600_000;

let gw: TestGw;
let upstream: ScriptedUpstream;
let stop: () => Promise<void>;
let projectId: string;
let live: string;
let test_: string;
// Ahead of the wall clock, which stamps the request rows: every row sent is inside the recent window.
const clock = new ManualClock(Date.now() + 30_000);

beforeAll(async () => {
  ({ gw, upstreams: { openai: upstream }, stop } = await startGw({ upstreams: { openai: openaiUpstream() }, clock }));
  projectId = gw.newProject(PROJECT_NAME);
  live = gw.key({ mode: "live", projectId });
  test_ = gw.key({ mode: "test", projectId });
});
afterAll(() => stop());

let n = 0;
async function send(key: string, count: number, expected: number | number[]): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await post(`${gw.url}/chat/completions`, key, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: `${PROMPT} ${n++}` }] }, { "X-Gw-Cache": "off" });
    await res.text();
    expect([expected].flat()).toContain(res.status);
  }
  await gw.drain();
}

/** The status JSON after the page's few seconds of caching have passed. */
async function summary(): Promise<Json & { components: Json[]; gw: { components: Json[] }; incidents: Json[]; scheduled_maintenances: Json[] }> {
  clock.advance(6_000);
  const res = await fetch(`${gw.url.replace(/\/v1$/, "")}/status.json`);
  expect(res.status).toBe(200);
  return (await res.json()) as Awaited<ReturnType<typeof summary>>;
}
const component = (s: Awaited<ReturnType<typeof summary>>, id: string) => s.components.find((c) => c.id === id);
const gwComponent = (s: Awaited<ReturnType<typeof summary>>, id: string) => s.gw.components.find((c) => c.id === id);

describe("the public status page through a real server", () => {
  test("components: API, Routing, Cache and the enabled provider, named after it", async () => {
    const s = await summary();
    expect(s.components.map((c) => [c.id, c.name])).toEqual([["api", "API"], ["routing", "Routing"], ["cache", "Cache"], ["provider-openai", "openai"]]);
    expect(s.components.every((c) => c.status === "operational")).toBe(true);
  });

  test("test-mode traffic counts for API, Routing and Cache but never for a provider", async () => {
    const before = await summary();
    await send(test_, 5, 200);
    const after = await summary();
    for (const id of ["api", "routing"]) expect(Number(gwComponent(after, id)!.requests) - Number(gwComponent(before, id)!.requests)).toBe(5);
    expect(gwComponent(after, "provider-openai")!.requests).toBe(gwComponent(before, "provider-openai")!.requests);
  });

  test("a provider with failing requests shows an outage, and the page indicator follows", async () => {
    await send(live, 22, 200);
    expect(component(await summary(), "provider-openai")!.status).toBe("operational");
    upstream.script({ status: 500 }, 1000);
    // 502s until the provider's circuit opens, then 503s (those name no provider).
    await send(live, 18, [502, 503]);
    upstream.reset();
    const s = await summary();
    expect(["partial_outage", "major_outage"]).toContain(String(component(s, "provider-openai")!.status));
    expect(component(s, "api")!.status).not.toBe("operational");
    expect(["major", "critical"]).toContain(String((s.status as Json).indicator));
  });

  test("the status JSON validates as a Statuspage v2 summary with an open incident and maintenance windows", async () => {
    const now = clock.now();
    const incident = await ok(await admin(gw, "POST", "/status/incidents", {
      name: "Elevated errors from openai", impact: "major", components: ["api", "provider-openai"], body: "We are looking into it.",
    }), 201);
    const inProgress = await ok(await admin(gw, "POST", "/status/maintenances", {
      name: "Cache store upgrade", components: ["cache"], body: "The cache is being upgraded.",
      scheduled_for: new Date(now - HOUR).toISOString(), scheduled_until: new Date(now + HOUR).toISOString(),
    }), 201);
    const scheduled = await ok(await admin(gw, "POST", "/status/maintenances", {
      name: "Routing table migration", components: ["routing"], body: "Planned.",
      scheduled_for: new Date(now + 24 * HOUR).toISOString(), scheduled_until: new Date(now + 26 * HOUR).toISOString(),
    }), 201);
    const s = await summary();
    if (!validate(s)) throw new Error(JSON.stringify(validate.errors, null, 2));
    expect(s.incidents.map((x) => x.id)).toEqual([incident.id]);
    expect((s.incidents[0]!.components as Json[]).map((c) => c.id)).toEqual(["api", "provider-openai"]);
    expect(s.scheduled_maintenances.map((m) => [m.id, m.status])).toEqual([[inProgress.id, "in_progress"], [scheduled.id, "scheduled"]]);
    expect(component(s, "cache")!.status).toBe("under_maintenance");
    expect(component(s, "routing")!.status).not.toBe("under_maintenance");
    for (const id of [incident.id, inProgress.id, scheduled.id]) await ok(await admin(gw, "DELETE", `/status/posts/${id}`));
  });

  test("maintenance shows under_maintenance for its components only inside its window", async () => {
    const now = clock.now();
    const m = await ok(await admin(gw, "POST", "/status/maintenances", {
      name: "Provider key rotation", components: ["provider-openai"], body: "Rotating keys.",
      scheduled_for: new Date(now + 10 * 60_000).toISOString(), scheduled_until: new Date(now + 40 * 60_000).toISOString(),
    }), 201);
    expect(component(await summary(), "provider-openai")!.status).not.toBe("under_maintenance");
    clock.advance(10 * 60_000);
    const during = await summary();
    expect(component(during, "provider-openai")!.status).toBe("under_maintenance");
    expect(component(during, "api")!.status).not.toBe("under_maintenance");
    clock.advance(30 * 60_000);
    const after = await summary();
    expect(component(after, "provider-openai")!.status).not.toBe("under_maintenance");
    expect(after.scheduled_maintenances.map((x) => x.id)).not.toContain(m.id);
    await ok(await admin(gw, "DELETE", `/status/posts/${m.id}`));
  });

  test("neither answer shows a project name, id, key or request content", async () => {
    clock.set(Date.now() + 30_000);
    await send(test_, 3, 200);
    clock.advance(6_000);
    const base = gw.url.replace(/\/v1$/, "");
    const bodies = [await (await fetch(`${base}/status.json`)).text(), await (await fetch(`${base}/status`)).text()];
    for (const body of bodies) {
      for (const secret of [PROJECT_NAME, projectId, live, test_, live.slice(0, 12), PROMPT, "marmalade"]) expect(body).not.toContain(secret);
    }
  });

  test("/status is HTML with no script, /status.css the stylesheet, both public with the page's headers", async () => {
    const base = gw.url.replace(/\/v1$/, "");
    const html = await fetch(`${base}/status`);
    expect(html.status).toBe(200);
    expect(html.headers.get("content-type")).toStartWith("text/html");
    const text = await html.text();
    expect(text).not.toContain("<script");
    expect(text).toContain('<link rel=stylesheet href=/status.css>');
    const csp = html.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain("script-src 'self'");
    expect(html.headers.get("x-frame-options")).toBe("DENY");
    expect(html.headers.get("cache-control")).toMatch(/max-age=\d+/);
    const json = await fetch(`${base}/status.json`);
    expect(json.headers.get("content-type")).toStartWith("application/json");
    expect(json.headers.get("x-content-type-options")).toBe("nosniff");
    const css = await fetch(`${base}/status.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toStartWith("text/css");
  });

  test("a burst within the cache's few seconds is served one build", async () => {
    const base = gw.url.replace(/\/v1$/, "");
    clock.advance(6_000);
    const first = await (await fetch(`${base}/status.json`)).text();
    await send(test_, 2, 200);
    expect(await (await fetch(`${base}/status.json`)).text()).toBe(first);
    clock.advance(6_000);
    expect(await (await fetch(`${base}/status.json`)).text()).not.toBe(first);
  });
});
