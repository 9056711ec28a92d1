// The webhook endpoints admin API (docs/webhooks.md "Endpoints"): views, errors naming the field at
// fault, 404s and 401s, the secret only in create and rotate answers (never in GETs or the audit
// log), deletion dropping the queue, and the deliveries list's pages.
import { afterEach, describe, expect, test } from "bun:test";
import { WEBHOOK_EVENT_TYPES } from "../../../src/monitoring/webhooks/event.ts";
import { admin, expectError, ISO, ok } from "../../helpers/admin-api.ts";
import { startWebhookGw, type WebhookGw } from "./webhook-gw.ts";

let t: WebhookGw | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

describe("webhook endpoints admin API", () => {
  test("create answers 201 with the secret once; list, PATCH and GET views never carry it", async () => {
    t = await startWebhookGw();
    const r = t.receiver();
    const created = await ok(await admin(t.gw, "POST", `/projects/${t.gw.projectId}/webhooks`, { url: r.url, description: "ops" }), 201);
    expect(created).toMatchObject({ object: "webhook_endpoint", project_id: t.gw.projectId, url: r.url, events: [...WEBHOOK_EVENT_TYPES], description: "ops", enabled: true, disabled_reason: null });
    expect(String(created.id)).toMatch(/^whe_/);
    expect(String(created.secret)).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(String(created.created_at)).toMatch(ISO);
    const secret = String(created.secret);
    const id = String(created.id);

    const listed = await admin(t.gw, "GET", `/projects/${t.gw.projectId}/webhooks`);
    const listText = await listed.text();
    expect(listText).not.toContain(secret);
    expect(JSON.parse(listText)).toMatchObject({ object: "list", data: [{ id, url: r.url }] });
    expect(JSON.parse(listText).data[0]).not.toHaveProperty("secret");

    const patched = await ok(await admin(t.gw, "PATCH", `/webhooks/${id}`, { events: ["invoice.created", "credits.low"], description: null }));
    expect(patched).toMatchObject({ events: ["invoice.created", "credits.low"], description: null });
    expect(patched).not.toHaveProperty("secret");
    const off = await ok(await admin(t.gw, "PATCH", `/webhooks/${id}`, { enabled: false }));
    expect(off).toMatchObject({ enabled: false });
    const all = await ok(await admin(t.gw, "PATCH", `/webhooks/${id}`, { events: null, enabled: true }));
    expect(all).toMatchObject({ enabled: true, events: [...WEBHOOK_EVENT_TYPES] });

    const rotated = await ok(await admin(t.gw, "POST", `/webhooks/${id}/rotate-secret`));
    await ok(await admin(t.gw, "POST", `/webhooks/${id}/test`));
    const audit = await (await admin(t.gw, "GET", `/audit-log?project_id=${t.gw.projectId}`)).text();
    expect(audit).not.toContain(secret);
    expect(audit).not.toContain(String(rotated.secret));
    const actions = (JSON.parse(audit).data as Array<{ action: string }>).map((e) => e.action);
    for (const a of ["webhook.create", "webhook.update", "webhook.rotate_secret", "webhook.test"]) expect(actions).toContain(a);
    const stored = t.gw.deps.db.query<{ secret: string }, [string]>("SELECT secret FROM webhook_endpoints WHERE id = ?").get(id);
    expect(stored?.secret.startsWith("v1.")).toBe(true); // sealed, never the plain secret
    expect(stored?.secret).not.toContain(String(rotated.secret).slice(6, 20));
  });

  test("400 naming url for a bad or refused URL, events for unknown types, the field for unknown fields", async () => {
    t = await startWebhookGw();
    const path = `/projects/${t.gw.projectId}/webhooks`;
    for (const url of ["not a url", "ftp://example.com/hook", "http://example.com/hook", "https://10.0.0.8/hook", "https://169.254.169.254/latest", "https://[fe80::1]/x", "https://192.168.1.1/"]) {
      await expectError(await admin(t.gw, "POST", path, { url }), 400, "invalid_request", "url");
    }
    await expectError(await admin(t.gw, "POST", path, {}), 400, "invalid_request", "url");
    const err = await expectError(await admin(t.gw, "POST", path, { url: t.receiver().url, events: ["credits.low", "credits.lol"] }), 400, "invalid_request", "events");
    expect(String(err.message)).toContain("credits.lol");
    await expectError(await admin(t.gw, "POST", path, { url: t.receiver().url, events: [] }), 400, "invalid_request", "events");
    await expectError(await admin(t.gw, "POST", path, { url: t.receiver().url, secret: "whsec_mine" }), 400, "invalid_request", "secret");
    const { id } = await t.endpoint(t.receiver());
    await expectError(await admin(t.gw, "PATCH", `/webhooks/${id}`, { url: "https://10.0.0.1/" }), 400, "invalid_request", "url");
    await expectError(await admin(t.gw, "PATCH", `/webhooks/${id}`, { enabled: "yes" }), 400, "invalid_request", "enabled");
    await expectError(await admin(t.gw, "PATCH", `/webhooks/${id}`, {}), 400, "invalid_request");
  });

  test("404 for unknown projects, endpoints and deliveries; 401 without the admin token", async () => {
    t = await startWebhookGw();
    const url = t.receiver().url;
    await expectError(await admin(t.gw, "POST", "/projects/prj_nope/webhooks", { url }), 404, "not_found", "id");
    await expectError(await admin(t.gw, "GET", "/projects/prj_nope/webhooks"), 404, "not_found", "id");
    for (const [method, path] of [["PATCH", "/webhooks/whe_nope"], ["DELETE", "/webhooks/whe_nope"], ["POST", "/webhooks/whe_nope/rotate-secret"], ["POST", "/webhooks/whe_nope/test"], ["GET", "/webhooks/whe_nope/deliveries"]] as const) {
      await expectError(await admin(t.gw, method, path, method === "PATCH" ? { enabled: true } : undefined), 404, "not_found", "webhook_id");
    }
    await expectError(await admin(t.gw, "POST", "/webhook-deliveries/whd_nope/replay"), 404, "not_found", "delivery_id");
    const { id } = await t.endpoint(t.receiver());
    for (const token of [null, "wrong-token", t.gw.testKey]) {
      expect((await admin(t.gw, "GET", `/projects/${t.gw.projectId}/webhooks`, undefined, token)).status).toBe(401);
      expect((await admin(t.gw, "POST", `/webhooks/${id}/rotate-secret`, undefined, token)).status).toBe(401);
    }
  });

  test("a project has at most 20 endpoints: the 21st answers 409 until one is deleted", async () => {
    t = await startWebhookGw();
    const r = t.receiver();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await t.endpoint(r)).id);
    await expectError(await admin(t.gw, "POST", `/projects/${t.gw.projectId}/webhooks`, { url: r.url }), 409, "conflict");
    await ok(await admin(t.gw, "DELETE", `/webhooks/${ids[0]}`));
    await t.endpoint(r);
  });

  test("deleting an endpoint drops its queue rows; the audit entry names its project", async () => {
    t = await startWebhookGw();
    const r = t.receiver();
    r.respond = () => ({ status: 500 });
    const { id } = await t.endpoint(r);
    t.emit("k1");
    await t.gw.deps.webhooks.runDue();
    expect(t.queued(id)).toHaveLength(1);
    expect(await ok(await admin(t.gw, "DELETE", `/webhooks/${id}`))).toEqual({ object: "webhook_endpoint", id, deleted: true });
    expect(t.queued(id)).toEqual([]);
    await expectError(await admin(t.gw, "DELETE", `/webhooks/${id}`), 404, "not_found", "webhook_id");
    const audit = (await ok(await admin(t.gw, "GET", `/audit-log?project_id=${t.gw.projectId}`))).data as Array<{ action: string; target: string }>;
    expect(audit.find((e) => e.action === "webhook.delete")?.target).toBe(id);
  });

  test("deliveries page newest first with limit and after", async () => {
    t = await startWebhookGw();
    const r = t.receiver();
    const { id } = await t.endpoint(r);
    for (let i = 0; i < 5; i++) await ok(await admin(t.gw, "POST", `/webhooks/${id}/test`));
    const first = await ok(await admin(t.gw, "GET", `/webhooks/${id}/deliveries?limit=2`));
    expect(first).toMatchObject({ object: "list", has_more: true });
    const ids = (first.data as Array<{ id: string }>).map((d) => d.id);
    const second = await ok(await admin(t.gw, "GET", `/webhooks/${id}/deliveries?limit=3&after=${ids[1]}`));
    expect(second.has_more).toBe(false);
    const all = [...ids, ...(second.data as Array<{ id: string }>).map((d) => d.id)];
    expect(all).toHaveLength(5);
    expect([...all].sort().reverse()).toEqual(all);
    await expectError(await admin(t.gw, "GET", `/webhooks/${id}/deliveries?limit=0`), 400, "invalid_request", "limit");
  });
});
