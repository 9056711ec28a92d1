// The dashboard's breaker view (GET /dashboard/api/monitoring) with two instances in one process on
// one PostgreSQL and one Redis (docs/scale-out.md): a circuit opened by failures on one instance
// shows open on the other, which never called the provider; its own samples stay its own.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { json } from "../helpers/expect-json.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startPostgres, startRedis, type PostgresService, type Service } from "../helpers/services.ts";
import { startSharedInstance, type SharedInstance } from "../helpers/shared-gw.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";
import { ADMIN_TOKEN } from "../helpers/test-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";

let pg: PostgresService;
let redis: Service;
let upstream: ScriptedUpstream;
const instances: SharedInstance[] = [];
beforeAll(async () => {
  [pg, redis, upstream] = await Promise.all([startPostgres(), startRedis(), startScriptedUpstream()]);
  for (let n = 0; n < 2; n++) instances.push(await startSharedInstance(pg, redis, upstreamEnv("openai", upstream.url, "sk-breakers")));
}, 120_000);
afterAll(async () => {
  for (const i of instances) await i.stop();
  await Promise.all([upstream?.stop(), redis?.stop(), pg?.stop()]);
});

interface Breaker { provider: string; model: string | null; state: string; samples?: number }

test("a circuit opened on instance 0 is open in instance 1's view; instance 1's samples are its own", async () => {
  const [a, b] = instances as [SharedInstance, SharedInstance];
  const admin = (method: string, path: string, body?: unknown) => fetch(`${a.server.url}/admin${path}`, {
    method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const project = await json<{ id: string }>(await admin("POST", "/projects", { name: "breakers" }), 201);
  const { key } = await json<{ key: string }>(await admin("POST", `/projects/${project.id}/keys`, { scopes: ["chat"], mode: "live" }), 201);
  const session = await fetch(`${b.origin}/dashboard/api/session`, { method: "POST", body: JSON.stringify({ token: ADMIN_TOKEN }) });
  const { csrf_token: csrf } = await json<{ csrf_token: string }>(session, 200);
  const cookie = (session.headers.get("set-cookie") ?? "").split(";")[0]!;
  const view = async () => (await json<{ providers: Breaker[] }>(await fetch(`${b.origin}/dashboard/api/monitoring`, { headers: { cookie, "x-gw-csrf": csrf } }), 200)).providers;
  expect(await view()).toEqual([]);

  upstream.script({ status: 500 }, 1_000);
  await waitFor(async () => {
    const res = await fetch(`${a.server.url}/chat/completions`, {
      method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-gw-cache": "off" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "fail" }] }),
    });
    await res.arrayBuffer();
    return res.status === 503;
  }, { timeoutMs: 20_000, what: "instance 0's circuit to open" });
  upstream.reset();
  await waitFor(async () => (await view()).some((h) => h.state === "open"), { timeoutMs: 5_000, what: "the flag in instance 1's view" });
  const open = (await view()).filter((h) => h.state === "open");
  expect(open.length).toBeGreaterThan(0);
  for (const h of open) expect(h).toMatchObject({ provider: "openai", samples: 0 });
}, 60_000);
