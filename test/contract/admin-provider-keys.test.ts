// PUT and DELETE /admin/projects/{id}/provider-keys/{provider} (docs/api.md "Admin API",
// docs/providers.md): a project's own key, stored sealed and never returned. Its use upstream: test/flows/providers/byok.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import type { ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../helpers/start-gw.ts";
import { admin as adminCall } from "../helpers/admin-api.ts";
import type { TestGw } from "../helpers/test-gw.ts";

const PROJECT_KEY = "sk-project-own-1111111111";

let projectUpstream: ScriptedUpstream;
let gw: TestGw;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ gw, spare: { projectUpstream }, stop } = await startGw({ spare: { projectUpstream: openaiUpstream() } }));
});
afterAll(() => stop());

const admin = (method: string, path: string, body?: unknown) => adminCall(gw, method, path, body);

describe("admin: PUT/DELETE /admin/projects/{id}/provider-keys/{provider}", () => {
  test("stores the key sealed and answers without it; the database holds no plain key", async () => {
    const project = gw.newProject("byok-store");
    const res = await admin("PUT", `/projects/${project}/provider-keys/openai`, { api_key: PROJECT_KEY, base_url: projectUpstream.url });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(PROJECT_KEY);
    expect(JSON.parse(text)).toMatchObject({ object: "provider_key", project_id: project, provider: "openai", base_url: projectUpstream.url });
    const view = await (await admin("GET", `/projects/${project}`)).text();
    expect(view).not.toContain(PROJECT_KEY);
    const db = new Database(join(gw.dataDir, "gw.sqlite"), { readonly: true });
    const rows = db.query<{ sealed_key: string }, []>("SELECT sealed_key FROM provider_keys").all();
    db.close();
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.sealed_key).not.toContain(PROJECT_KEY);
  });

  test("unknown project 404, unknown provider 400, Azure without base_url 400, bad body 400, missing key on DELETE 404", async () => {
    const project = gw.newProject("byok-errors");
    expect((await admin("PUT", "/projects/prj_nope/provider-keys/openai", { api_key: "k" })).status).toBe(404);
    const unknown = await admin("PUT", `/projects/${project}/provider-keys/nonesuch`, { api_key: "k" });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { param: string } }).error.param).toBe("provider");
    const azure = await admin("PUT", `/projects/${project}/provider-keys/azure-openai`, { api_key: "k" });
    expect(azure.status).toBe(400);
    expect(((await azure.json()) as { error: { param: string } }).error.param).toBe("base_url");
    expect((await admin("PUT", `/projects/${project}/provider-keys/openai`, { base_url: "http://x" })).status).toBe(400);
    expect((await admin("PUT", `/projects/${project}/provider-keys/openai`, { api_key: "k", base_url: "ftp://x" })).status).toBe(400);
    expect((await admin("DELETE", `/projects/${project}/provider-keys/openai`)).status).toBe(404);
    const noAdmin = await fetch(`${gw.url}/admin/projects/${project}/provider-keys/openai`, { method: "PUT", headers: { authorization: `Bearer ${gw.testKey}` }, body: "{}" });
    expect(noAdmin.status).toBe(401);
  });
});
