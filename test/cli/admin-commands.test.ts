// The offline admin commands (docs/running.md "Command line"): projects list/get/update with the
// admin API's policy schema, keys list without secrets, provider keys sealed as the API seals them
// and used by a gw started on the same directory, and the exit codes of refused input.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { loadSecretKey, secretBox } from "../../src/lib/secret-box.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { killAll, Served } from "../helpers/served.ts";
import { entries, runGw, runGwJson, tempDir } from "./run-gw.ts";

type Json = Record<string, unknown>;
const cwd = tempDir("gw-cli-admin-cwd-");
const data = tempDir("gw-cli-admin-data-");
const gw = (...args: string[]) => runGw([...args, "--data", data], { cwd });
const gwJson = <T = Json>(...args: string[]) => runGwJson<T>([...args, "--data", data], { cwd });

let project: string;
let upstream: ScriptedUpstream;
beforeAll(async () => {
  project = (await gwJson("projects", "create", "--name", "acme")).id as string;
  upstream = await startScriptedUpstream();
});
afterAll(async () => {
  await killAll();
  await upstream.stop();
  for (const d of [cwd, data]) rmSync(d, { recursive: true, force: true });
});

describe("gw projects list | get | update", () => {
  test("list and get print project objects as the admin API does", async () => {
    const other = (await gwJson("projects", "create", "--name", "second")).id as string;
    const list = await gwJson<{ object: string; data: Json[]; has_more: boolean }>("projects", "list");
    expect(list.object).toBe("list");
    expect(list.has_more).toBe(false);
    expect(list.data.map((p) => p.id)).toEqual([project, other]);
    expect(list.data[0]).toMatchObject({ object: "project", name: "acme", plan: "pro", billing: { mode: "postpaid", balance: 0, credit_limit: null }, policy: {} });
    expect(await gwJson("projects", "get", project)).toEqual(list.data[0]!);
  });

  test("update merges the policy key by key, null unsets a key, and --name renames", async () => {
    expect((await gwJson("projects", "update", project, "--policy", '{"semantic_cache":true,"cache_ttl":600}')).policy).toEqual({ semantic_cache: true, cache_ttl: 600 });
    const updated = await gwJson("projects", "update", project, "--policy", '{"cache_ttl":null,"pii":"redact"}', "--name", "acme2");
    expect(updated).toMatchObject({ name: "acme2", policy: { semantic_cache: true, pii: "redact" } });
    expect(await gwJson("projects", "get", project)).toEqual(updated);
  });

  test("bad JSON, a policy the schema refuses and nothing to change exit 2 and change nothing", async () => {
    const before = await gwJson("projects", "get", project);
    const cases: Array<[string[], RegExp]> = [
      [["--policy", "{semantic_cache:true}"], /--policy is not valid JSON/],
      [["--policy", '{"semantic_cache":"yes"}'], /Invalid value for 'policy\.semantic_cache'/],
      [["--policy", '{"no_such_key":1}'], /policy/],
      [["--policy", '{"ip_allowlist":["10.0.0.0/99"]}'], /not an IP address or CIDR range/],
      [["--plan", "platinum"], /Invalid value for 'plan'/],
      [[], /Nothing to change/],
    ];
    for (const [flags, message] of cases) {
      const r = await gw("projects", "update", project, ...flags);
      expect({ flags, code: r.code, stdout: r.stdout }).toEqual({ flags, code: 2, stdout: "" });
      expect(r.stderr).toMatch(message);
    }
    expect(await gwJson("projects", "get", project)).toEqual(before);
  });

  test("an unknown project exits 1 and names it", async () => {
    for (const args of [["projects", "get", "prj_nope"], ["projects", "update", "prj_nope", "--name", "x"], ["keys", "list", "--project", "prj_nope"]]) {
      const r = await gw(...args);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("prj_nope");
    }
  });
});

describe("gw keys list", () => {
  test("lists the project's keys, revoked ones included, with neither secret nor hash", async () => {
    const live = await gwJson("keys", "create", "--project", project, "--name", "ci");
    const test = await gwJson("keys", "create", "--project", project, "--test", "--scopes", "chat,requests");
    await gwJson("keys", "revoke", test.id as string);
    const r = await gw("keys", "list", "--project", project);
    expect(r.code).toBe(0);
    for (const secret of [live.key, test.key] as string[]) expect(r.stdout).not.toContain(secret);
    const db = new Database(join(data, "gw.sqlite"), { readonly: true });
    const hashes = db.query<{ key_hash: string }, []>("SELECT key_hash FROM api_keys").all();
    db.close();
    for (const { key_hash } of hashes) expect(r.stdout).not.toContain(key_hash);
    const list = JSON.parse(r.stdout) as { object: string; data: Json[] };
    expect(list.object).toBe("list");
    expect(list.data).toHaveLength(2);
    expect(list.data[0]).toEqual({
      object: "key", id: live.id, project_id: project, name: "ci", mode: "live", scopes: live.scopes, byok: false,
      ip_allowlist: null, created_at: live.created_at, revoked_at: null,
    });
    expect(list.data[1]).toMatchObject({ id: test.id, mode: "test", scopes: ["chat", "requests"] });
    expect(list.data[1]!.revoked_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });
});

describe("gw provider-keys set | delete", () => {
  const OWN_KEY = "sk-from-the-cli-2222222222";

  test("--key-stdin stores the key sealed with the data directory's secret key; a gw on the directory calls upstream with it", async () => {
    const r = await runGw(["provider-keys", "set", "--project", project, "--provider", "openai", "--key-stdin", "--base-url", upstream.url, "--data", data], { cwd, stdin: `${OWN_KEY}\n` });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(OWN_KEY);
    expect(JSON.parse(r.stdout)).toMatchObject({ object: "provider_key", project_id: project, provider: "openai", base_url: upstream.url });
    const db = new Database(join(data, "gw.sqlite"), { readonly: true });
    const row = db.query<{ sealed_key: string }, [string]>("SELECT sealed_key FROM provider_keys WHERE project_id = ?").get(project)!;
    db.close();
    expect(row.sealed_key).not.toContain(OWN_KEY);
    expect(secretBox(loadSecretKey(data, null)).open(row.sealed_key)).toBe(OWN_KEY);

    const key = (await gwJson("keys", "create", "--project", project, "--scopes", "chat,models")).key as string;
    const served = new Served(data);
    await served.waitUntilServing(key);
    const res = await fetch(`${served.url}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-gw-cache": "off" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(200);
    expect(upstream.calls.at(-1)?.headers.authorization).toBe(`Bearer ${OWN_KEY}`);
    expect(await served.terminate()).toBe(0);
  });

  test("--key VALUE replaces it; delete removes it, and a second delete exits 1", async () => {
    expect(await gwJson("provider-keys", "set", "--project", project, "--provider", "openai", "--key", "sk-second-333", "--base-url", upstream.url)).toMatchObject({ provider: "openai" });
    expect(await gwJson("provider-keys", "delete", "--project", project, "--provider", "openai")).toEqual({ object: "provider_key", project_id: project, provider: "openai", deleted: true });
    const again = await gw("provider-keys", "delete", "--project", project, "--provider", "openai");
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/no key for 'openai'/);
  });

  test("refused input exits 2 before the secret key or the database is touched", async () => {
    const fresh = tempDir("gw-cli-admin-fresh-");
    try {
      const cases: Array<[string[], RegExp, string | undefined]> = [
        [["--provider", "openai"], /exactly one of --key VALUE and --key-stdin/, undefined],
        [["--provider", "openai", "--key", "a", "--key-stdin"], /exactly one of/, "b"],
        [["--provider", "openai", "--key-stdin"], /key is empty/, "\n"],
        [["--provider", "openai", "--key", "sk-x", "--base-url", "ftp://x"], /Invalid value for 'base_url'/, undefined],
      ];
      for (const [flags, message, stdin] of cases) {
        const r = await runGw(["provider-keys", "set", "--project", "prj_x", ...flags, "--data", fresh], { cwd, stdin });
        expect({ flags, code: r.code }).toEqual({ flags, code: 2 });
        expect(r.stderr).toMatch(message);
      }
      expect(entries(fresh)).toEqual([]);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  test("an unknown provider exits 2 and lists the known ones", async () => {
    const r = await gw("provider-keys", "set", "--project", project, "--provider", "openia", "--key", "sk-x");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Unknown provider 'openia'\. Known: .*openai/);
  });
});
