// The dashboard's webhook pages in the multi-instance mode, two instances in one process on one
// PostgreSQL and one Redis (docs/scale-out.md): an endpoint made through one instance's dashboard is
// listed, edited and tested through the other's, and each write's audit entry names its project
// (the admin API's too, when its path names only the endpoint).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json } from "../helpers/expect-json.ts";
import { startPostgres, startRedis, type PostgresService, type Service } from "../helpers/services.ts";
import { dashboardSignIn, sharedAdmin, startSharedInstance, type SharedInstance } from "../helpers/shared-gw.ts";
import { ADMIN_TOKEN } from "../helpers/test-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

let pg: PostgresService;
let redis: Service;
let receiver: WebhookReceiver;
const instances: SharedInstance[] = [];
let projectId: string;

const at = (n: number): SharedInstance => instances[n]!;
const admin = (n: number, method: string, path: string, body?: unknown) => sharedAdmin(at(n), method, path, body);

interface Session { cookie: string; csrf: string }

async function signIn(n: number): Promise<Session> {
  const { res, cookie, csrf } = await dashboardSignIn(at(n), ADMIN_TOKEN);
  await json(res, 200);
  return { cookie, csrf };
}

const dash = (n: number, s: Session, method: string, path: string, body?: unknown) => fetch(`${at(n).origin}/dashboard/api${path}`, {
  method, headers: { cookie: s.cookie, "x-gw-csrf": s.csrf }, body: body === undefined ? undefined : JSON.stringify(body),
});

beforeAll(async () => {
  [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  receiver = startWebhookReceiver();
  for (let n = 0; n < 2; n++) instances.push(await startSharedInstance(pg, redis, { GW_WEBHOOK_ALLOW_LOOPBACK: "1" }));
  projectId = (await json<{ id: string }>(await admin(0, "POST", "/projects", { name: "hooks-dash" }), 201)).id;
  await waitFor(async () => (await admin(1, "GET", `/projects/${projectId}`)).status === 200, { what: "the project on instance 1" });
});
afterAll(async () => {
  for (const i of instances) await i.stop();
  await receiver?.stop();
  await Promise.all([redis?.stop(), pg?.stop()]);
});

describe("dashboard webhooks across instances", () => {
  test("made through instance 0's dashboard, listed, edited and tested through instance 1's; the audit entries name the project", async () => {
    const s = await signIn(0);
    const created = await json<{ id: string; secret: string }>(await dash(0, s, "POST", `/monitoring/webhooks?project=${projectId}`, { url: receiver.url }), 201);
    const list = await json<{ data: Array<{ id: string; all_events: boolean }> }>(await dash(1, s, "GET", `/monitoring/webhooks?project=${projectId}`), 200);
    expect(list.data).toMatchObject([{ id: created.id, all_events: true }]);
    const edited = await json<{ description: string }>(await dash(1, s, "PATCH", `/monitoring/webhooks/${created.id}`, { description: "ops" }), 200);
    expect(edited.description).toBe("ops");
    const ping = await json<{ status_code: number; event_type: string }>(await dash(1, s, "POST", `/monitoring/webhooks/${created.id}/test`), 200);
    expect(ping).toMatchObject({ status_code: 200, event_type: "test.ping" });
    expect(receiver.verify(created.secret)).toMatchObject({ type: "test.ping", project_id: projectId });
    const page = await json<{ data: Array<{ event_type: string }> }>(await dash(0, s, "GET", `/monitoring/webhooks/${created.id}/deliveries?project=${projectId}`), 200);
    expect(page.data.map((d) => d.event_type)).toEqual(["test.ping"]);
    const audit = await json<{ data: Array<{ action: string }> }>(await admin(0, "GET", `/audit-log?project_id=${projectId}&limit=50`), 200);
    expect(audit.data.map((e) => e.action).filter((a) => a.startsWith("webhook."))).toEqual(["webhook.test", "webhook.update", "webhook.create"]);
  });

  test("an admin API write naming only the endpoint (PATCH /admin/webhooks/:id) through the other instance is audited under its project", async () => {
    const made = await json<{ id: string }>(await admin(0, "POST", `/projects/${projectId}/webhooks`, { url: receiver.url }), 201);
    await json(await admin(1, "GET", `/projects/${projectId}/webhooks`), 200);
    await json(await admin(1, "PATCH", `/webhooks/${made.id}`, { description: "pager" }), 200);
    const audit = await json<{ data: Array<{ action: string; target: string | null }> }>(await admin(0, "GET", `/audit-log?project_id=${projectId}&limit=50`), 200);
    expect(audit.data.filter((e) => e.target === made.id).map((e) => e.action)).toEqual(["webhook.update", "webhook.create"]);
  });
});
