// The public status page across THREE gw processes on one PostgreSQL (docs/scale-out.md): uptime and
// component counts include every instance's requests (the leader's status rollups), and an operator
// post made on one instance, and its update made on another, show on the third's /status.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { json } from "../helpers/expect-json.ts";
import { startMultiGw, type GwInstance, type MultiGw } from "../helpers/multi-gw.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";

let upstream: ScriptedUpstream;
let m: MultiGw;
beforeAll(async () => {
  upstream = await startScriptedUpstream();
  m = await startMultiGw(3, { ...upstreamEnv("openai", upstream.url, "sk-status"), GW_SEMANTIC_EMBEDDER: "off" });
}, 180_000);
afterAll(async () => {
  await m?.stop();
  await upstream?.stop();
});

interface GwComponent { id: string; uptime: Record<string, number | null>; requests: number }
interface Summary {
  components: Array<{ id: string; status: string }>;
  incidents: Array<{ id: string; name: string; status: string }>;
  gw: { components: GwComponent[]; recent_incidents: Array<{ id: string }> };
}

const summary = async (i: GwInstance): Promise<Summary> => json<Summary>(await fetch(`${i.origin}/status.json`), 200);
const component = (s: Summary, id: string) => s.gw.components.find((c) => c.id === id);

async function chat(i: GwInstance, key: string): Promise<number> {
  const res = await fetch(`${i.url}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-gw-cache": "off" },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "Name one prime number." }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

test("uptime counts the requests of all three instances; every instance shows the same components", async () => {
  const project = await json<{ id: string }>(await m.admin("POST", "/projects", { name: "status" }), 201);
  const { key } = await json<{ key: string }>(await m.admin("POST", `/projects/${project.id}/keys`, { scopes: ["chat"], mode: "live" }), 201);
  for (const i of [1, 2]) await waitFor(async () => (await m.admin("GET", `/projects/${project.id}`, undefined, i)).status === 200, { what: `the project on instance ${i}` });
  // 30 answered, ten by each instance; then 10 failures, all through instance 1.
  for (let n = 0; n < 30; n++) expect(await chat(m.instances[n % 3]!, key)).toBe(200);
  upstream.script({ status: 500 }, 1_000);
  for (let n = 0; n < 10; n++) expect(await chat(m.instances[1]!, key)).toBeGreaterThanOrEqual(500);
  upstream.reset();

  // The leader rebuilds the minutes' rollups each round (5 s); a page is kept 5 s.
  for (const i of m.instances) {
    await waitFor(async () => component(await summary(i), "api")?.requests === 40, { what: "40 requests on the page", timeoutMs: 30_000 });
  }
  const pages = await Promise.all(m.instances.map(summary));
  for (const page of pages) {
    expect(component(page, "api")).toMatchObject({ requests: 40, uptime: { "24h": 0.75, "7d": 0.75 } });
    expect(component(page, "provider-openai")).toMatchObject({ requests: 40, uptime: { "24h": 0.75 } });
    expect(page.components.find((c) => c.id === "api")?.status).toBe("partial_outage");
    expect(page.gw.components).toEqual(pages[0]!.gw.components);
  }
}, 120_000);

test("a status post made on instance 0 and updated on 1 shows on instance 2's /status and /status.json", async () => {
  const post = await json<{ id: string }>(await m.admin("POST", "/status/incidents", { name: "Elevated API errors", components: ["api"], impact: "major", body: "Investigating." }), 201);
  const third = m.instances[2]!;
  await waitFor(async () => (await summary(third)).incidents.some((x) => x.id === post.id), { what: "the post on instance 2", timeoutMs: 15_000 });
  expect((await summary(third)).incidents).toEqual([expect.objectContaining({ id: post.id, name: "Elevated API errors", status: "investigating" })]);
  expect(await (await fetch(`${third.origin}/status`)).text()).toContain("Elevated API errors");
  const listed = await json<{ data: Array<{ id: string }> }>(await m.admin("GET", "/status/posts", undefined, 2), 200);
  expect(listed.data.map((p) => p.id)).toEqual([post.id]);

  await json(await m.admin("POST", `/status/posts/${post.id}/updates`, { status: "resolved", body: "Fixed." }, 1), 201);
  await waitFor(async () => (await summary(third)).gw.recent_incidents.some((x) => x.id === post.id), { what: "the resolution on instance 2", timeoutMs: 15_000 });
  expect((await summary(third)).incidents).toEqual([]);
}, 60_000);
