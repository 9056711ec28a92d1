// Projects, policy, API keys and provider keys across three instances (docs/scale-out.md):
// what the admin API writes on one instance is PostgreSQL's before it answers and works on the
// others at once; a revoke reaches every instance within 1 s; a new instance starts with all of it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMultiGw, type GwInstance, type MultiGw } from "../helpers/multi-gw.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";
import { post } from "../helpers/test-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { json } from "../helpers/expect-json.ts";

const MODEL = "openai/gpt-4o-mini";

let m: MultiGw;
let upstream: ScriptedUpstream;
beforeAll(async () => {
  upstream = await startScriptedUpstream();
  m = await startMultiGw(3, upstreamEnv("openai", upstream.url, "sk-operator"));
});
afterAll(async () => {
  await m?.stop();
  await upstream?.stop();
});

const chat = (i: GwInstance, key: string) =>
  post(`${i.url}/chat/completions`, key, { model: MODEL, messages: [{ role: "user", content: "Say hello." }], max_tokens: 20 }, { "x-gw-cache": "off" });

/** A project and a live key, both made through instance `on`'s admin API. */
async function projectWithKey(name: string, on = 0): Promise<{ project: string; key: string; keyId: string }> {
  const { id: project } = await json<{ id: string }>(await m.admin("POST", "/projects", { name }, on), 201);
  const issued = await json<{ id: string; key: string }>(await m.admin("POST", `/projects/${project}/keys`, { name: "live" }, on), 201);
  return { project, key: issued.key, keyId: issued.id };
}

test("a project and a live key made on instance 0 serve at once on instances 1 and 2", async () => {
  const { project, key } = await projectWithKey("made-on-0");
  // No wait: an instance that has not heard of the key yet asks PostgreSQL for it.
  for (const i of [1, 2]) await json(await chat(m.instances[i]!, key), 200);
  const listed = await json<{ data: Array<{ id: string }> }>(await m.admin("GET", "/projects", undefined, 2), 200);
  expect(listed.data.map((p) => p.id)).toContain(project);
});

test("a policy PATCH on instance 1 is applied by instance 2", async () => {
  const { project, key } = await projectWithKey("policy");
  await json(await chat(m.instances[2]!, key), 200);
  await json(await m.admin("PATCH", `/projects/${project}`, { policy: { allowed_providers: ["anthropic"] } }, 1), 200);
  // The admin view on 2 reads its mirror: it shows the policy once the change has been applied there.
  await waitFor(async () => {
    const p = await json<{ policy: { allowed_providers?: string[] } }>(await m.admin("GET", `/projects/${project}`, undefined, 2), 200);
    return p.policy.allowed_providers?.[0] === "anthropic";
  }, { timeoutMs: 5_000, what: "the policy on instance 2" });
  const refused = await json<{ error: { code: string; message: string } }>(await chat(m.instances[2]!, key), 503);
  expect(refused.error.code).toBe("no_model_available");
  expect(refused.error.message).toContain("allowed_providers");
});

test("a key revoked on instance 0 answers 401 on instances 1 and 2 within 1 s", async () => {
  const { key, keyId } = await projectWithKey("revoke");
  // Both instances have the key mirrored and its context cached.
  for (const i of [1, 2]) await json(await chat(m.instances[i]!, key), 200);
  await json(await m.admin("DELETE", `/keys/${keyId}`), 200);
  const t0 = performance.now();
  const elapsed = await Promise.all([1, 2].map(async (i) => {
    await waitFor(async () => (await chat(m.instances[i]!, key)).status === 401, { timeoutMs: 5_000, what: `401 on instance ${i}` });
    return performance.now() - t0;
  }));
  // The bound (done-when): every instance refuses the key within a second of the answer.
  for (const ms of elapsed) expect(ms).toBeLessThan(1_000);
  const body = await json<{ error: { code: string } }>(await chat(m.instances[1]!, key), 401);
  expect(body.error.code).toBe("invalid_api_key");
});

test("a provider key stored on instance 0 serves the project's calls on instance 1", async () => {
  const { project, key } = await projectWithKey("byok");
  await json(await chat(m.instances[1]!, key), 200);
  await json(await m.admin("PUT", `/projects/${project}/provider-keys/openai`, { api_key: "sk-project-own", base_url: upstream.url }), 200);
  await waitFor(async () => {
    upstream.reset();
    await json(await chat(m.instances[1]!, key), 200);
    return upstream.calls.at(-1)?.headers.authorization === "Bearer sk-project-own";
  }, { timeoutMs: 5_000, what: "the project's own key used on instance 1" });
  await json(await m.admin("DELETE", `/projects/${project}/provider-keys/openai`, undefined, 2), 200);
  await waitFor(async () => {
    upstream.reset();
    await json(await chat(m.instances[1]!, key), 200);
    return upstream.calls.at(-1)?.headers.authorization === "Bearer sk-operator";
  }, { timeoutMs: 5_000, what: "the operator's key again on instance 1" });
});

test("an instance restarted (a fresh data directory) starts with every project, key, revoke and policy", async () => {
  const kept = await projectWithKey("kept", 1);
  const revoked = await projectWithKey("revoked-before-restart", 2);
  await json(await m.admin("DELETE", `/keys/${revoked.keyId}`, undefined, 2), 200);
  await json(await m.admin("PATCH", `/projects/${kept.project}`, { name: "kept-renamed", policy: { allowed_providers: ["openai"] } }, 0), 200);
  expect(await m.instances[2]!.stop()).toBe(0);
  const fresh = await m.start();
  const p = await json<{ name: string; policy: { allowed_providers?: string[] } }>(await m.admin("GET", `/projects/${kept.project}`, undefined, m.instances.length - 1), 200);
  expect(p.name).toBe("kept-renamed");
  expect(p.policy.allowed_providers).toEqual(["openai"]);
  await json(await chat(fresh, kept.key), 200);
  expect((await chat(fresh, revoked.key)).status).toBe(401);
  const keys = await json<{ data: Array<{ id: string; revoked_at: string | null }> }>(await m.admin("GET", `/projects/${revoked.project}/keys`, undefined, m.instances.length - 1), 200);
  expect(keys.data.find((k) => k.id === revoked.keyId)?.revoked_at).not.toBeNull();
});
