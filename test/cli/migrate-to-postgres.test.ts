// `gw migrate-to-postgres` (docs/scale-out.md): a real single-node gw serves live requests on a
// scripted upstream and stops; the command, a subprocess, copies its data directory into a fresh
// PostgreSQL; the rows and figures there are checked against SQLite's.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient, SQL } from "bun";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { termsOf } from "../../src/billing/terms.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { sha256Hex } from "../../src/lib/hash.ts";
import { loadSecretKey, secretBox } from "../../src/lib/secret-box.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { RedisIdempotencyStore } from "../../src/store/redis/idempotency.ts";
import { startServer, type RunningServer } from "../../src/server.ts";
import { MULTI_SECRET_KEY, startMultiGw, type MultiGw } from "../helpers/multi-gw.ts";
import type { PostgresService } from "../helpers/services.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";
import { ADMIN_TOKEN, post } from "../helpers/test-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { runGw } from "./run-gw.ts";

/** The key every multi-instance gw of the file runs with: the copy must seal with it. */
const SECRET = MULTI_SECRET_KEY;
const MODEL = "openai/gpt-4o-mini";
const answer = (prompt: number, completion: number) => ({
  id: "chatcmpl-migrate", object: "chat.completion", created: 1, model: "gpt-4o-mini",
  choices: [{ index: 0, message: { role: "assistant", content: "Migrated answer." }, finish_reason: "stop" }],
  usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
});

let dataDir = "";
let upstream: ScriptedUpstream;
let server: RunningServer | null = null;
let multi: MultiGw;
let pg: PostgresService;
let sql: SQL;
const made: { prepaid: string; postpaid: string; liveKey: string; revokedKeyId: string; revokedKey: string; servedIds: string[]; balanceUsd: number; webhookId: string; webhookSecret: string } = {
  prepaid: "", postpaid: "", liveKey: "", revokedKeyId: "", revokedKey: "", servedIds: [], balanceUsd: 0, webhookId: "", webhookSecret: "",
};

const adminCall = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
  const res = await fetch(`${server!.url}/admin${path}`, {
    method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
};
const migrate = () => runGw(["migrate-to-postgres", "--data", dataDir], { cwd: dataDir, env: { GW_DATABASE_URL: pg.url, GW_REDIS_URL: multi.redis.url, GW_SECRET_KEY: SECRET } });

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "gw-migrate-"));
  upstream = await startScriptedUpstream();
  // PostgreSQL and Redis with no instance yet: one starts on the copy at the end.
  multi = await startMultiGw(0, upstreamEnv("openai", upstream.url, "sk-operator-0000"));
  pg = multi.pg;
  sql = new SQL({ url: pg.url, max: 2 });
  const config = loadConfig({ port: "0", data: dataDir }, {
    GW_ADMIN_TOKEN: ADMIN_TOKEN, OPENAI_API_KEY: "sk-operator-0000", OPENAI_BASE_URL: upstream.url, GW_SEMANTIC_EMBEDDER: "off", GW_WEBHOOK_ALLOW_LOOPBACK: "1",
  });
  server = startServer(config, { deps: buildDeps(config, { logger: createLogger("silent") }), quiet: true });
  const prepaid = await adminCall("POST", "/projects", { name: "acme", billing: { mode: "prepaid" }, policy: { budgets: { daily: 5 }, semantic_cache: false } });
  made.prepaid = String(prepaid.id);
  made.postpaid = String((await adminCall("POST", "/projects", { name: "later", billing: { mode: "postpaid", credit_limit: 12.5 } })).id);
  made.liveKey = String((await adminCall("POST", `/projects/${made.prepaid}/keys`, { mode: "live", scopes: ["chat", "models", "requests"] })).key);
  const old = await adminCall("POST", `/projects/${made.prepaid}/keys`, { mode: "live", name: "old" });
  [made.revokedKeyId, made.revokedKey] = [String(old.id), String(old.key)];
  await adminCall("DELETE", `/keys/${made.revokedKeyId}`);
  await adminCall("PUT", `/projects/${made.postpaid}/provider-keys/openai`, { api_key: "sk-project-own-1234" });
  await adminCall("POST", `/projects/${made.prepaid}/credits`, { amount: 1.25 });
  const hook = await adminCall("POST", `/projects/${made.prepaid}/webhooks`, { url: "http://127.0.0.1:9/hook", events: ["budget.threshold_reached"] });
  [made.webhookId, made.webhookSecret] = [String(hook.id), String(hook.secret)];
  await adminCall("POST", `/projects/${made.prepaid}/alert-rules`, { name: "errors", metric: "error_rate", op: "gt", threshold: 50, window: "1m" });
  for (let i = 0; i < 3; i++) {
    upstream.script({ body: answer(1_000 + i, 500) });
    const headers: Record<string, string> = { "x-gw-cache": "off", ...(i === 0 ? { "idempotency-key": "migrate-once" } : {}) };
    const res = await post(`${server.url}/chat/completions`, made.liveKey, { model: MODEL, messages: [{ role: "user", content: `Question ${i}` }] }, headers);
    expect(res.status).toBe(200);
    await res.text();
    made.servedIds.push(res.headers.get("x-gw-request-id")!);
  }
  expect((await post(`${server.url}/requests/${made.servedIds[1]}/feedback`, made.liveKey, { rating: 4 })).status).toBeLessThan(300);
  // A request still holding when the process stops: the copy releases its hold, as a restart would.
  const terms = termsOf(server.deps.repos.projects.get(made.prepaid)!)!;
  expect(server.deps.billing.reserve(made.prepaid, "req_held_at_stop", terms, 12_345).ok).toBe(true);
  made.balanceUsd = Number(((await adminCall("GET", `/projects/${made.prepaid}`)).billing as { balance: number }).balance);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await sql?.close();
  await multi?.stop();
  await upstream?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** SQLite's figures, read from the stopped data directory. */
function sqliteFigures() {
  const db = new Database(join(dataDir, "gw.sqlite"), { readonly: true });
  try {
    const one = <T>(q: string, ...p: Array<string | number>) => db.query<T, Array<string | number>>(q).get(...p)!;
    return {
      ledger: one<{ n: number }>("SELECT count(*) AS n FROM ledger").n,
      projects: one<{ n: number }>("SELECT count(*) AS n FROM projects").n,
      modelMinutes: one<{ n: number; r: number }>("SELECT count(*) AS n, sum(requests) AS r FROM model_rollups"),
      balance: one<{ b: number }>("SELECT sum(CASE kind WHEN 'credit' THEN amount WHEN 'charge' THEN -amount ELSE 0 END) AS b FROM ledger WHERE project_id = ?", made.prepaid).b,
      charges: one<{ s: number; n: number }>("SELECT sum(amount) AS s, count(*) AS n FROM ledger WHERE kind = 'charge' AND project_id = ?", made.prepaid),
      requests: db.query<{ id: string; cost: number; tags: string }, []>("SELECT id, cost, tags FROM requests ORDER BY id").all(),
      traces: one<{ n: number }>("SELECT count(*) AS n FROM traces").n,
      keys: db.query<{ id: string; key_hash: string; revoked_at: number | null }, []>("SELECT id, key_hash, revoked_at FROM api_keys ORDER BY id").all(),
      policy: one<{ policy: string }>("SELECT policy FROM projects WHERE id = ?", made.prepaid).policy,
    };
  } finally {
    db.close();
  }
}

describe("gw migrate-to-postgres", () => {
  test("refuses while the gw serves the data directory, and changes nothing", async () => {
    const r = await migrate();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("stop it first");
    const [row] = await sql`SELECT to_regclass('projects') IS NOT NULL AS made`;
    expect(row.made).toBe(false);
  }, 60_000);

  test("copies projects, keys, money, results and the log in one run, SQLite's figures exactly", async () => {
    await server!.stop();
    server = null;
    const before = sqliteFigures();
    const r = await migrate();
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { copied: Record<string, number>; resealed: number; idempotency_in_redis: number; warnings: string[] };
    expect(report.warnings).toEqual([]);
    expect(report.idempotency_in_redis).toBe(1);
    expect(report.copied).toMatchObject({
      projects: before.projects, api_keys: before.keys.length, provider_keys: 1, ledger: before.ledger, holds_released: 1, accounts: before.projects,
      requests: before.requests.length, traces: before.traces, feedback: 1, idempotency_keys: 1,
    });
    expect(before.requests.length).toBeGreaterThanOrEqual(3);
    expect(before.keys.length).toBeGreaterThanOrEqual(2);
    // The provider key and the webhook secret were sealed with the data directory's secret.key.
    expect(report.resealed).toBe(2);
    expect(report.copied).toMatchObject({ webhook_endpoints: 1, alert_rules: 1 });

    // Balances exact: the account row, the ledger's sums and what the admin API answered before.
    const [account] = await sql`SELECT balance::text AS balance, reserved::text AS reserved FROM accounts WHERE project_id = ${made.prepaid}`;
    expect(Number(account.balance)).toBe(before.balance);
    expect(Number(account.reserved)).toBe(0);
    expect(before.balance).toBe(1_250_000_000 - before.charges.s);
    expect(before.balance / 1e9).toBeCloseTo(made.balanceUsd, 9);
    const [held] = await sql`SELECT amount::int AS amount, note FROM ledger WHERE request_id = 'req_held_at_stop' AND kind = 'release'`;
    expect(held).toMatchObject({ amount: 12_345 });
    expect((await sql`SELECT count(*)::int AS n FROM ledger`)[0].n).toBe(before.ledger + 1);
    const [today] = await sql`SELECT spent::text AS spent, requests::int AS requests FROM spend_counters
      WHERE project_id = ${made.prepaid} AND period = 'daily' AND period_key = ${new Date().toISOString().slice(0, 10)}`;
    expect({ spent: Number(today.spent), requests: today.requests }).toEqual({ spent: before.charges.s, requests: before.charges.n });

    // Keys by hash (the live secret's SHA-256), revocation kept; policy and credit limit in PostgreSQL's units.
    const keys = await sql`SELECT id, key_hash, revoked_at::text AS revoked_at, byok FROM api_keys ORDER BY id`;
    expect(keys.map((k: { id: string; key_hash: string; revoked_at: string | null }) => ({ id: k.id, key_hash: k.key_hash, revoked_at: k.revoked_at === null ? null : Number(k.revoked_at) })))
      .toEqual(before.keys);
    expect(keys.some((k: { key_hash: string }) => k.key_hash === sha256Hex(made.liveKey))).toBe(true);
    const projects = await sql`SELECT id, billing_mode, credit_limit::text AS credit_limit, policy FROM projects ORDER BY created_at, id`;
    expect(projects.find((p: { id: string }) => p.id === made.postpaid)).toMatchObject({ billing_mode: "postpaid", credit_limit: "12500000000" });
    expect(JSON.parse(projects.find((p: { id: string }) => p.id === made.prepaid).policy)).toEqual(JSON.parse(before.policy));

    // The provider key opens with GW_SECRET_KEY now (it was sealed with the data directory's secret.key).
    const [pk] = await sql`SELECT sealed_key FROM provider_keys WHERE project_id = ${made.postpaid}`;
    const box = secretBox(loadSecretKey(dataDir, SECRET));
    expect(box.open(pk.sealed_key)).toBe("sk-project-own-1234");
    const [hook] = await sql`SELECT secret, enabled FROM webhook_endpoints WHERE id = ${made.webhookId}`;
    expect(hook.enabled).toBe(true);
    expect(box.open(hook.secret)).toBe(made.webhookSecret);

    // The log: every row with its cost in nano-USD and its tags as an array, traces beside them.
    const rows = await sql`SELECT id, cost::text AS cost, tags FROM requests ORDER BY id`;
    expect(rows.map((x: { id: string; cost: string; tags: string[] }) => ({ id: x.id, cost: Number(x.cost), tags: [...x.tags] })))
      .toEqual(before.requests.map((x) => ({ id: x.id, cost: Math.round(x.cost * 1e9), tags: JSON.parse(x.tags) as string[] })));
    for (const id of made.servedIds) expect(rows.some((x: { id: string }) => x.id === id)).toBe(true);
    expect((await sql`SELECT count(*)::int AS n FROM traces`)[0].n).toBe(before.traces);
    const [minutes] = await sql`SELECT sum(requests)::int AS n FROM metrics_rollups`;
    expect(minutes.n).toBe(before.requests.length);
    expect(before.modelMinutes.n).toBeGreaterThan(0);
    const [models] = await sql`SELECT count(*)::int AS n, sum(requests)::int AS r FROM model_rollups`;
    expect(models).toEqual(before.modelMinutes);
    const [rating] = await sql`SELECT rating, counted FROM feedback WHERE request_id = ${made.servedIds[1]}`;
    expect(rating.rating).toBe(4);
    const [idem] = await sql`SELECT state, request_id FROM idempotency_keys WHERE key = 'migrate-once'`;
    expect(idem).toMatchObject({ state: "stored", request_id: made.servedIds[0] });
    // And in Redis, where the instances look for it, as their own store reads it.
    const redis = new RedisClient(multi.redis.url);
    try {
      const stored = await new RedisIdempotencyStore(redis).get(made.prepaid, "migrate-once");
      expect(stored).toMatchObject({ state: "stored", status: 200, requestId: made.servedIds[0] });
      expect(new TextDecoder().decode(stored!.body!)).toContain("Migrated answer.");
    } finally {
      redis.close();
    }
  }, 120_000);

  test("a second run refuses a database that already has projects, and changes nothing", async () => {
    const ledger = (await sql`SELECT count(*)::int AS n FROM ledger`)[0].n;
    const r = await migrate();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/already holds \d+ project\(s\)/);
    expect(r.stderr).toContain("drop and create the database");
    expect((await sql`SELECT count(*)::int AS n FROM ledger`)[0].n).toBe(ledger);
  }, 60_000);

  test("--skip-log leaves the log behind; a secret no key opens, or a ledger PostgreSQL refuses, rolls all of it back", async () => {
    // Copies made with `gw backup`, each into a database of its own on the same server.
    const copyOf = async (name: string) => {
      const dir = join(dataDir, name);
      expect((await runGw(["backup", dir, "--data", dataDir], { cwd: dataDir })).code).toBe(0);
      await sql.unsafe(`CREATE DATABASE ${name}`);
      return { dir, url: pg.url.replace(/\/gw_test$/, `/${name}`) };
    };
    const skip = await copyOf("gw_skip");
    const r = await runGw(["migrate-to-postgres", "--data", skip.dir, "--skip-log"], { cwd: dataDir, env: { GW_DATABASE_URL: skip.url, GW_SECRET_KEY: SECRET } });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { copied: Record<string, number>; log_skipped: boolean; warnings: string[] };
    expect(report.log_skipped).toBe(true);
    expect(report.warnings.join(" ")).toContain("GW_REDIS_URL is not set: the idempotency results went to PostgreSQL only");
    expect(report.copied.requests).toBeUndefined();
    expect(report.copied.ledger).toBeGreaterThan(0);
    const other = new SQL({ url: skip.url, max: 1 });
    try {
      expect((await other`SELECT count(*)::int AS n FROM requests`)[0].n).toBe(0);
      expect((await other`SELECT count(*)::int AS n FROM ledger`)[0].n).toBe(report.copied.ledger! + report.copied.holds_released!);
    } finally {
      await other.close();
    }

    // Without secret.key the provider key opens with neither key: nothing at all is copied.
    const keyless = await copyOf("gw_keyless");
    rmSync(join(keyless.dir, "secret.key"));
    const refused = await runGw(["migrate-to-postgres", "--data", keyless.dir], { cwd: dataDir, env: { GW_DATABASE_URL: keyless.url, GW_SECRET_KEY: SECRET } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("opens with neither GW_SECRET_KEY nor");
    const nothingIn = async (url: string) => {
      const empty = new SQL({ url, max: 1 });
      try {
        const [n] = await empty`SELECT (SELECT count(*) FROM projects)::int AS projects, (SELECT count(*) FROM api_keys)::int AS keys, (SELECT count(*) FROM ledger)::int AS ledger`;
        expect(n).toEqual({ projects: 0, keys: 0, ledger: 0 });
      } finally {
        await empty.close();
      }
    };
    await nothingIn(keyless.url);

    // A ledger with two charges for one request breaks PostgreSQL's once-per-request index: refused, named, nothing copied.
    const twice = await copyOf("gw_twice");
    const db = new Database(join(twice.dir, "gw.sqlite"));
    db.run(`INSERT INTO ledger (project_id, kind, amount, request_id, created_at)
      SELECT project_id, kind, amount, request_id, created_at FROM ledger WHERE kind = 'charge' LIMIT 1`);
    db.close();
    const dup = await runGw(["migrate-to-postgres", "--data", twice.dir], { cwd: dataDir, env: { GW_DATABASE_URL: twice.url, GW_SECRET_KEY: SECRET } });
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain("PostgreSQL refused a row of the copy");
    expect(dup.stderr).toContain("ledger_close_once");
    await nothingIn(twice.url);
  }, 90_000);

  test("a multi-instance gw on the copy: the old key authenticates and the revoked one not, the balance, log and idempotent replay are there, a charge lands on the account", async () => {
    const gw = await multi.start();
    const models = await fetch(`${gw.url}/models`, { headers: { authorization: `Bearer ${made.liveKey}` } });
    expect(models.status).toBe(200);
    expect((await fetch(`${gw.url}/models`, { headers: { authorization: `Bearer ${made.revokedKey}` } })).status).toBe(401);
    const project = await multi.admin("GET", `/projects/${made.prepaid}`);
    expect(project.status).toBe(200);
    expect(((await project.json()) as { billing: { balance: number } }).billing.balance).toBe(made.balanceUsd);
    // The log, and an idempotent request replayed from the result the copy put in Redis.
    const listed = await fetch(`${gw.url}/requests?limit=50`, { headers: { authorization: `Bearer ${made.liveKey}` } });
    expect(listed.status).toBe(200);
    const ids = ((await listed.json()) as { data: Array<{ request_id: string }> }).data.map((r) => r.request_id);
    for (const id of made.servedIds) expect(ids).toContain(id);
    const one = await fetch(`${gw.url}/requests/${made.servedIds[2]}`, { headers: { authorization: `Bearer ${made.liveKey}` } });
    expect(one.status).toBe(200);
    expect(((await one.json()) as { trace: unknown }).trace).not.toBeNull();
    const calls = upstream.callCount();
    const replay = await post(`${gw.url}/chat/completions`, made.liveKey, { model: MODEL, messages: [{ role: "user", content: "Question 0" }] },
      { "x-gw-cache": "off", "idempotency-key": "migrate-once" });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.text()).toContain("Migrated answer.");
    expect(upstream.callCount()).toBe(calls);
    upstream.script({ body: answer(100, 50) });
    const served = await post(`${gw.url}/chat/completions`, made.liveKey, { model: MODEL, messages: [{ role: "user", content: "After the move" }] }, { "x-gw-cache": "off" });
    expect(served.status).toBe(200);
    await served.text();
    // Charged on the migrated account: the ledger's new row and the balance move together.
    const id = served.headers.get("x-gw-request-id");
    let charge = 0;
    await waitFor(async () => {
      const [row] = await sql`SELECT amount::text AS amount FROM ledger WHERE request_id = ${id} AND kind = 'charge'`;
      charge = Number(row?.amount ?? 0);
      return row !== undefined;
    }, { timeoutMs: 10_000, what: "the charge in PostgreSQL" });
    expect(charge).toBeGreaterThan(0);
    const [account] = await sql`SELECT balance::text AS balance FROM accounts WHERE project_id = ${made.prepaid}`;
    expect(Number(account.balance)).toBe(Math.round(made.balanceUsd * 1e9) - charge);
  }, 120_000);

  test("without GW_DATABASE_URL or GW_SECRET_KEY it says which is missing; an unreachable PostgreSQL is named without its password", async () => {
    const noUrl = await runGw(["migrate-to-postgres", "--data", dataDir], { cwd: dataDir, env: { GW_SECRET_KEY: SECRET } });
    expect(noUrl.code).toBe(1);
    expect(noUrl.stderr).toContain("GW_DATABASE_URL is not set");
    const noKey = await runGw(["migrate-to-postgres", "--data", dataDir], { cwd: dataDir, env: { GW_DATABASE_URL: pg.url } });
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain("GW_SECRET_KEY is not set");
    const nowhere = await runGw(["migrate-to-postgres", "--data", dataDir], { cwd: dataDir, env: { GW_DATABASE_URL: "postgres://gw:hunter2@127.0.0.1:1/gw", GW_SECRET_KEY: SECRET } });
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain("PostgreSQL at 127.0.0.1:1/gw cannot be used");
    expect(nowhere.stderr).not.toContain("hunter2");
  }, 60_000);
});
