// The tenant mirror in one process on real PostgreSQL and Redis (docs/scale-out.md): admin writes
// are PostgreSQL's when answered; rows written by another instance authenticate at once, and its bus
// messages are applied; with PostgreSQL gone admin writes answer 503 and change nothing here.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisClient, SQL } from "bun";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_SCOPES } from "../../src/config/constants.ts";
import { sha256Hex } from "../../src/lib/hash.ts";
import { newKeyId, newKeySecret } from "../../src/lib/ids.ts";
import type { ApiKey } from "../../src/store/repos/api-keys.ts";
import { createProject } from "../../src/admin/projects.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps, openRepos } from "../../src/deps.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { createLogger } from "../../src/observability/logger.ts";
import type { RunningServer } from "../../src/server.ts";
import { openSharedState } from "../../src/shared-state.ts";
import { openDatabase } from "../../src/store/db.ts";
import { TENANT_CHANNEL } from "../../src/store/redis/bus.ts";
import { MIRROR_MARKER } from "../../src/store/tenant-mirror.ts";
import type { SharedState } from "../../src/store/shared.ts";
import { startPostgres, startRedis, type PostgresService, type Service } from "../helpers/services.ts";
import { ADMIN_TOKEN, post } from "../helpers/test-gw.ts";
import { startSharedInstance, type SharedInstance } from "../helpers/shared-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { json } from "../helpers/expect-json.ts";

let pg: PostgresService;
let redis: Service;
let shared: SharedState;
let server: RunningServer;
let dir: string;
let instance: SharedInstance;

beforeAll(async () => {
  [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  instance = await startSharedInstance(pg, redis);
  ({ server, shared, dir } = instance);
});
afterAll(async () => {
  await instance?.stop();
  await Promise.all([redis?.stop(), pg?.stop()]);
});

const admin = (method: string, path: string, body?: unknown) => fetch(`${server.url}/admin${path}`, {
  method,
  headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
  body: body === undefined ? undefined : JSON.stringify(body),
});
const chat = (key: string) => post(`${server.url}/chat/completions`, key, { model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi." }] });

const models = (key: string) => fetch(`${server.url}/models`, { headers: { authorization: `Bearer ${key}` } });

/** PostgreSQL's own rows, read on a connection of the test's. */
async function inPostgres<T>(read: (sql: SQL) => Promise<T>): Promise<T> {
  const sql = new SQL(pg.url);
  try {
    return await read(sql);
  } finally {
    await sql.close();
  }
}

let project = "";
let key = "";
let keyId = "";

test("admin writes are in PostgreSQL when they are answered", async () => {
  ({ id: project } = await json<{ id: string }>(await admin("POST", "/projects", { name: "first", policy: { cache: false } }), 201));
  ({ key, id: keyId } = await json<{ key: string; id: string }>(await admin("POST", `/projects/${project}/keys`, { mode: "test" }), 201));
  await json(await admin("PATCH", `/projects/${project}`, { name: "first-renamed" }), 200);
  const rows = await inPostgres(async (sql) => ({
    projects: await sql`SELECT name, policy FROM projects WHERE id = ${project}`,
    keys: await sql`SELECT project_id, revoked_at FROM api_keys WHERE id = ${keyId}`,
  }));
  expect(rows.projects[0].name).toBe("first-renamed");
  expect(JSON.parse(rows.projects[0].policy)).toEqual({ cache: false });
  expect(rows.keys[0]).toEqual({ project_id: project, revoked_at: null });
  await json(await chat(key), 200);
});

test("a project and key written by another instance authenticate here at once, and its bus messages are applied", async () => {
  // Straight into PostgreSQL, as another instance would: this one has no row of it yet.
  const p = { id: "prj_elsewhere", name: "elsewhere", plan: "pro" as const, billingMode: "postpaid" as const, creditLimit: null, policy: {}, createdAt: Date.now() };
  await shared.tenants.projects.create(p);
  const secret = `gw_test_${newKeySecret()}`;
  const issued = { secret, key: { id: newKeyId(), projectId: p.id, name: null, keyHash: sha256Hex(secret), mode: "test", scopes: [...DEFAULT_SCOPES], byok: false, ipAllowlist: null, createdAt: Date.now(), revokedAt: null } satisfies ApiKey };
  await shared.tenants.keys.create(issued.key);
  expect(server.deps.repos.apiKeys.findByHash(issued.key.keyHash)).toBeNull();
  await json(await chat(issued.secret), 200);
  expect(server.deps.repos.apiKeys.findByHash(issued.key.keyHash)?.projectId).toBe(p.id);
  // Revoked there and said on the bus: refused here without waiting for the periodic reload.
  await shared.tenants.keys.revoke(p.id, issued.key.id, Date.now());
  const publisher = new RedisClient(redis.url);
  try {
    // Messages that are not changes are ignored; said again each round: the subscription is made as
    // the server starts, maybe after the first.
    await waitFor(async () => {
      for (const junk of ["not json", "{}", JSON.stringify({ kind: "table", project: p.id, id: "x", from: "gw_another" })]) await publisher.publish(TENANT_CHANNEL, junk);
      await publisher.publish(TENANT_CHANNEL, JSON.stringify({ kind: "key", project: p.id, id: issued.key.id, from: "gw_another" }));
      return (await chat(issued.secret)).status === 401;
    }, { timeoutMs: 5_000, what: "the revoke applied from the bus" });
  } finally {
    publisher.close();
  }
});

test("the Messages API authenticates a key only PostgreSQL holds too (x-api-key)", async () => {
  const secret = `gw_test_${newKeySecret()}`;
  await shared.tenants.keys.create({ id: newKeyId(), projectId: "prj_elsewhere", name: null, keyHash: sha256Hex(secret), mode: "test", scopes: ["chat"], byok: false, ipAllowlist: null, createdAt: Date.now(), revokedAt: null });
  const res = await fetch(`${server.url}/messages/count_tokens`, {
    method: "POST", headers: { "x-api-key": secret, "content-type": "application/json" },
    body: JSON.stringify({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hello" }] }),
  });
  expect((await json<{ input_tokens: number }>(res, 200)).input_tokens).toBeGreaterThan(0);
  const unknown = await fetch(`${server.url}/messages/count_tokens`, {
    method: "POST", headers: { "x-api-key": `gw_test_${"b".repeat(40)}`, "content-type": "application/json" }, body: "{}",
  });
  expect(unknown.status).toBe(401);
  expect(((await unknown.json()) as { type: string }).type).toBe("error");
});

test("the admin API here acts on a project and a key another instance made a moment ago (no message yet)", async () => {
  const p = { id: "prj_justmade", name: "just made", plan: "pro" as const, billingMode: "postpaid" as const, creditLimit: null, policy: {}, createdAt: Date.now() };
  await shared.tenants.projects.create(p);
  const secret = `gw_test_${newKeySecret()}`;
  const made = { id: newKeyId(), projectId: p.id, name: null, keyHash: sha256Hex(secret), mode: "test", scopes: [...DEFAULT_SCOPES], byok: false, ipAllowlist: null, createdAt: Date.now(), revokedAt: null } satisfies ApiKey;
  await shared.tenants.keys.create(made);
  expect(server.deps.repos.projects.get(p.id)).toBeNull();
  await json(await admin("PATCH", `/projects/${p.id}`, { name: "renamed here" }), 200);
  await json(await admin("POST", `/projects/${p.id}/keys`, { mode: "test" }), 201);
  await json(await admin("DELETE", `/keys/${made.id}`), 200);
  expect((await shared.tenants.keys.get(p.id, made.id))?.revokedAt).not.toBeNull();
  expect((await shared.tenants.projects.get(p.id))?.name).toBe("renamed here");
  expect((await chat(secret)).status).toBe(401);
  await json(await admin("GET", `/projects/prj_nowhere`), 404);
});

test("a PATCH merges into PostgreSQL's row, not a mirror that has not heard of another instance's change", async () => {
  const before = (await shared.tenants.projects.get("prj_justmade"))!;
  // Another instance set a policy key; no message reached this one.
  await shared.tenants.projects.setPolicy(before.id, { ...before.policy, cache: false });
  const patched = await json<{ policy: Record<string, unknown> }>(await admin("PATCH", `/projects/${before.id}`, { policy: { allowed_providers: ["openai"] } }), 200);
  expect(patched.policy).toEqual({ cache: false, allowed_providers: ["openai"] });
  expect((await shared.tenants.projects.getPolicy(before.id))).toEqual({ cache: false, allowed_providers: ["openai"] });
  // PATCHes at once, each its own key: every one answered 200 is in the stored policy (none lost;
  // one that lost the race thrice would answer 409 conflict and be absent).
  const patches = [{ semantic_mode: "balanced" }, { cache_ttl: 60 }, { pii: "redact" }, { secrets: "redact" }, { budget_action: "warn" }];
  const answers = await Promise.all(patches.map((policy) => admin("PATCH", `/projects/${before.id}`, { policy })));
  const stored = (await shared.tenants.projects.getPolicy(before.id))!;
  patches.forEach((policy, i) => {
    const [name, value] = Object.entries(policy)[0]!;
    expect([200, 409]).toContain(answers[i]!.status);
    if (answers[i]!.status === 200) expect(stored).toHaveProperty(name, value);
    else expect(stored).not.toHaveProperty(name);
  });
  expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
});

test("Redis down: a revoke made elsewhere is polled for; Redis back: the bus is subscribed again", async () => {
  const p = "prj_elsewhere";
  const made = () => {
    const secret = `gw_test_${newKeySecret()}`;
    return { secret, key: { id: newKeyId(), projectId: p, name: null, keyHash: sha256Hex(secret), mode: "test", scopes: [...DEFAULT_SCOPES], byok: false, ipAllowlist: null, createdAt: Date.now(), revokedAt: null } satisfies ApiKey };
  };
  const [a, c] = [made(), made()];
  for (const k of [a, c]) {
    await shared.tenants.keys.create(k.key);
    await json(await models(k.secret), 200);
  }
  const { port, password } = redis;
  await redis.stop();
  // Revoked elsewhere while Redis is down: no message can say it; the mirror polls every second.
  await shared.tenants.keys.revoke(p, a.key.id, Date.now());
  await waitFor(async () => (await models(a.secret)).status === 401, { timeoutMs: 5_000, what: "the revoke polled for while Redis is down" });
  redis = await startRedis({ port, password });
  await waitFor(() => shared.redisSubscriber.connected, { timeoutMs: 15_000, what: "the bus connection back" });
  // Connected again, the mirror polls no more: only a message delivered on the channel, subscribed
  // again, revokes c before the 30 s period (said each round: the subscription may still be on its way).
  await shared.tenants.keys.revoke(p, c.key.id, Date.now());
  const publisher = new RedisClient(redis.url);
  try {
    await waitFor(async () => {
      await publisher.publish(TENANT_CHANNEL, JSON.stringify({ kind: "key", project: p, id: c.key.id, from: "gw_another" }));
      return (await models(c.secret)).status === 401;
    }, { timeoutMs: 10_000, what: "the revoke said on the bus once subscribed again" });
  } finally {
    publisher.close();
  }
});

test("a full reload makes the mirror PostgreSQL's again: rows changed, missing or extra here", async () => {
  const { db } = server.deps;
  await shared.tenants.projects.save({ ...(await shared.tenants.projects.get(project))!, name: "renamed in PostgreSQL" });
  db.run("DELETE FROM api_keys WHERE id = ?", [keyId]);
  db.run("INSERT INTO projects (id, name, plan, billing_mode, policy, created_at) VALUES ('prj_stray', 'stray', 'pro', 'postpaid', '{}', 1)");
  db.run("INSERT INTO api_keys (id, project_id, key_hash, mode, scopes, created_at) VALUES ('key_stray', 'prj_stray', 'stray-hash', 'live', '[]', 1)");
  await shared.mirror.reload();
  const { repos } = server.deps;
  expect(repos.projects.get(project)?.name).toBe("renamed in PostgreSQL");
  expect(repos.apiKeys.get(keyId)?.projectId).toBe(project);
  expect(repos.projects.get("prj_stray")).toBeNull();
  expect(repos.apiKeys.get("key_stray")).toBeNull();
  const pgIds = (await shared.tenants.projects.list()).map((p) => p.id).sort();
  expect(repos.projects.list().map((p) => p.id).sort()).toEqual(pgIds);
  await json(await models(key), 200);
});

test("a data directory with projects PostgreSQL lacks is refused, not emptied; an empty one is marked as a mirror", async () => {
  expect(existsSync(join(dir, "data", MIRROR_MARKER))).toBe(true);
  const data = join(dir, "single-node-data");
  const db = openDatabase(data);
  createProject(openRepos(db).projects, { name: "kept single-node" });
  db.close();
  const config = loadConfig({ port: "0", data }, {
    GW_DATABASE_URL: pg.url, GW_REDIS_URL: redis.url, GW_SECRET_KEY: "tenants-test-secret-key-0123456789abcdef0123456789", GW_SEMANTIC_EMBEDDER: "off",
  });
  const other = await openSharedState(config, { clock: systemClock, logger: createLogger("silent") });
  try {
    expect(() => buildDeps(config, { shared: other, logger: createLogger("silent") })).toThrow("holds 1 project(s) PostgreSQL does not have: run 'gw migrate-to-postgres'");
  } finally {
    await other.close();
  }
  const reopened = openDatabase(data);
  expect(openRepos(reopened).projects.list().map((p) => p.name)).toEqual(["kept single-node"]);
  reopened.close();
});

test("PostgreSQL gone: admin writes answer 503 and change nothing; a mirrored key still authenticates, an unknown one is 503", async () => {
  await pg.stop();
  const refused = await json<{ error: { code: string } }>(await admin("POST", "/projects", { name: "never" }), 503);
  expect(refused.error.code).toBe("service_unavailable");
  await json(await admin("PATCH", `/projects/${project}`, { name: "never-renamed" }), 503);
  await json(await admin("POST", `/projects/${project}/keys`, { mode: "test" }), 503);
  await json(await admin("DELETE", `/keys/${keyId}`), 503);
  await json(await admin("PUT", `/projects/${project}/provider-keys/openai`, { api_key: "sk-never" }), 503);
  // Nothing of it reached this instance's mirror.
  expect(server.deps.repos.projects.list().map((p) => p.name)).toEqual(["renamed in PostgreSQL", "elsewhere", "renamed here"]);
  expect(server.deps.repos.apiKeys.listByProject(project).map((k) => k.revokedAt ?? null)).toEqual([null]);
  // An admin read is audited before it is answered, and the audit log is PostgreSQL's: 503 too.
  await json(await admin("GET", `/projects/${project}/keys`), 503);
  expect(server.deps.repos.providerKeys.list(project)).toEqual([]);
  // The key still authenticates from the mirror (a call needing no money nor log); one it does not
  // hold cannot be checked: 503, not 401.
  await json(await models(key), 200);
  const unknown = await json<{ error: { code: string } }>(await models(`gw_test_${"a".repeat(40)}`), 503);
  expect(unknown.error.code).toBe("service_unavailable");
  // What needs no lookup is refused as ever: a malformed key, no key.
  expect((await json<{ error: { code: string } }>(await models("not-a-gw-key"), 401)).error.code).toBe("invalid_api_key");
  expect((await fetch(`${server.url}/models`)).status).toBe(401);
});
