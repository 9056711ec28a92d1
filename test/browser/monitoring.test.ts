// The Monitoring page of the compiled gw (docs/dashboard.md "Pages"): the operator adds a webhook endpoint
// to a loopback receiver (its secret shown once), sends a test and sees the delivery the receiver got and
// verified; creates an alert rule; a project session with scope `requests` sees both read-only; then every
// other action on an endpoint and a rule, and an incident a burst of errors opened.
import { afterAll, expect, test } from "bun:test";
import { signIn, unnamedControls, watchedPage } from "../helpers/browser.ts";
import { startWebhookReceiver } from "../helpers/webhook-receiver.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { adminCall, chat, dashSession, projectWithKey } from "./gw-api.ts";
import { browserSuite, TEST_MS } from "./fixture.ts";

const s = browserSuite({ GW_WEBHOOK_ALLOW_LOOPBACK: "1", GW_MONITOR_INTERVAL_S: "1" });
const receiver = startWebhookReceiver();
afterAll(() => receiver.stop());

test("operator: a webhook endpoint (secret once, test delivery seen and verified) and an alert rule; a project user sees them read-only", async () => {
  const { projectId, key } = await projectWithKey(s.gw, "watched", ["chat", "requests"]);
  const op = await watchedPage(s.browser, s.gw.origin);
  const user = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(op.page, s.gw.origin, s.gw.adminToken);
    await op.page.goto(`${s.gw.origin}/monitoring?project=${projectId}`);
    await op.page.getByRole("heading", { level: 1, name: "Monitoring", exact: true }).waitFor();

    const form = op.page.getByRole("form", { name: "New webhook endpoint" });
    await form.getByLabel("Endpoint URL").fill(receiver.url);
    await form.getByLabel("Description").fill("browser receiver");
    await form.getByRole("button", { name: "Add endpoint" }).click();
    const secret = await op.page.getByLabel("Webhook signing secret").inputValue();
    expect(secret).toMatch(/^whsec_/);
    await op.page.getByRole("button", { name: "Done", exact: true }).click();
    await op.page.getByText(receiver.url, { exact: true }).waitFor();

    await op.page.getByRole("button", { name: "Send test", exact: true }).click();
    await op.page.getByRole("status").filter({ hasText: "Test sent" }).waitFor();
    const deliveries = op.page.getByRole("table", { name: "Deliveries" });
    await deliveries.getByText("test.ping", { exact: true }).waitFor();
    await deliveries.getByText("200", { exact: true }).waitFor();
    const [ping] = await receiver.waitFor(1);
    expect((receiver.verify(secret, ping) as { type: string }).type).toBe("test.ping");

    const rule = op.page.getByRole("form", { name: "New alert rule" });
    await rule.getByLabel("Rule name").fill("errors over half");
    await rule.getByLabel("Threshold").fill("50");
    await rule.getByLabel("Window").selectOption("1m");
    await rule.getByRole("button", { name: "Create rule" }).click();
    const rules = op.page.getByRole("table", { name: "Alert rules" });
    await rules.getByText("errors over half", { exact: true }).waitFor();
    await rules.getByText(/error_rate > 50 over 1m/).waitFor();
    expect(await unnamedControls(op.page)).toEqual([]);
    // Shown once: a reload shows the endpoint, never its secret.
    await op.page.reload();
    await op.page.getByText(receiver.url, { exact: true }).waitFor();
    expect(await op.page.locator("body").innerText()).not.toContain("whsec_");
    expect(op.problems).toEqual([]);
    // Audited as the admin API's calls are, under the project, with the session as the actor.
    const audit = await adminCall<{ data: { action: string; actor: { type: string } }[] }>(s.gw, "GET", `/audit-log?project_id=${projectId}`);
    const actions = audit.data.filter((e) => e.actor.type === "operator_session").map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["webhook.create", "webhook.test", "alert_rule.create"]));

    await signIn(user.page, s.gw.origin, key);
    expect(await user.page.getByRole("link", { name: "Status page" }).count()).toBe(0);
    await user.page.getByRole("link", { name: "Monitoring", exact: true }).click();
    await user.page.getByRole("table", { name: "Alert rules" }).getByText("errors over half", { exact: true }).waitFor();
    await user.page.getByText(receiver.url, { exact: true }).waitFor();
    await user.page.getByRole("button", { name: "Deliveries", exact: true }).click();
    await user.page.getByRole("table", { name: "Deliveries" }).getByText("test.ping", { exact: true }).waitFor();
    for (const name of ["Add endpoint", "Create rule", "Send test", "Rotate secret", "Replay"]) {
      expect(await user.page.getByRole("button", { name }).count()).toBe(0);
    }
    expect(await user.page.locator("body").innerText()).not.toContain("whsec_");
    expect(user.problems).toEqual([]);
    expect([...op.foreign, ...user.foreign]).toEqual([]);
  } finally {
    await op.context.close();
    await user.context.close();
  }
}, TEST_MS * 2);

test("the monitoring API: a project session cannot write, nor read another project's endpoint; a failed write is audited", async () => {
  const other = await projectWithKey(s.gw, "other", ["chat", "requests"]);
  const hook = await adminCall<{ id: string }>(s.gw, "POST", `/projects/${other.projectId}/webhooks`, { url: receiver.url });
  const { key: reader } = await projectWithKey(s.gw, "reader", ["chat", "requests"]);
  const session = await dashSession(s.gw, reader);
  expect((await session.get(`/monitoring/webhooks/${hook.id}/deliveries`)).status).toBe(404);
  expect((await session.get(`/monitoring/webhooks?project=${other.projectId}`)).status).toBe(404);
  expect((await session.post("/monitoring/webhooks", { url: receiver.url })).status).toBe(403);
  expect((await session.post("/monitoring/alert-rules", { name: "x", metric: "requests", op: "gt", threshold: 1, window: "1m" })).status).toBe(403);
  // The operator's write on a missing endpoint: 404, audited as a failure.
  const operator = await dashSession(s.gw, s.gw.adminToken);
  expect((await operator.post("/monitoring/webhooks/whe_missing/test", {})).status).toBe(404);
  const audit = await adminCall<{ data: { action: string; target: string; outcome: string }[] }>(s.gw, "GET", "/audit-log");
  expect(audit.data.find((e) => e.target === "whe_missing")).toMatchObject({ action: "webhook.test", outcome: "failure" });
}, TEST_MS);

test("operator: edit events, disable, rotate (a new secret once), replay and delete an endpoint; edit, disable and delete a rule; an incident listed open", async () => {
  const { projectId, key } = await projectWithKey(s.gw, "managed", ["chat", "requests"]);
  await adminCall(s.gw, "POST", `/projects/${projectId}/alert-rules`, { name: "burst", metric: "error_rate", op: "gt", threshold: 50, window: "1m", min_requests: 5, for: "0s" });
  // GW_MONITOR_INTERVAL_S=1: the rule is evaluated every second; the page lists what the API has.
  for (let i = 0; i < 6; i++) await chat(s.gw, key, `failing ${i}`, {}, { model: "gw-test:upstream_error" });
  await waitFor(async () => (await adminCall<{ data: unknown[] }>(s.gw, "GET", `/projects/${projectId}/incidents?status=opened`)).data.length === 1, { timeoutMs: 15_000, what: "the incident" });
  const hook = await adminCall<{ id: string; secret: string }>(s.gw, "POST", `/projects/${projectId}/webhooks`, { url: receiver.url });
  const op = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(op.page, s.gw.origin, s.gw.adminToken);
    await op.page.goto(`${s.gw.origin}/monitoring?project=${projectId}`);
    const incidents = op.page.getByRole("table", { name: "Incidents" });
    await incidents.getByText("burst", { exact: true }).waitFor();
    await incidents.getByText("open", { exact: true }).waitFor();

    await op.page.getByRole("button", { name: "Edit events", exact: true }).click();
    const events = op.page.getByRole("form", { name: `Events of ${receiver.url}` });
    await events.getByLabel("Events").fill("test.ping, incident.opened");
    await events.getByRole("button", { name: "Save" }).click();
    await op.page.getByText("test.ping, incident.opened", { exact: true }).waitFor();
    await op.page.getByRole("button", { name: "Disable", exact: true }).click();
    await op.page.getByText("disabled", { exact: true }).waitFor();
    await op.page.getByRole("button", { name: "Enable", exact: true }).click();
    await op.page.getByText("enabled", { exact: true }).waitFor();
    await op.page.getByRole("button", { name: "Rotate secret" }).click();
    const rotated = await op.page.getByLabel("Webhook signing secret").inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(hook.secret);
    await op.page.getByRole("button", { name: "Done", exact: true }).click();

    const before = receiver.received.length;
    await op.page.getByRole("button", { name: "Send test", exact: true }).click();
    const deliveries = op.page.getByRole("table", { name: "Deliveries" });
    await deliveries.getByText("test.ping", { exact: true }).waitFor();
    await deliveries.getByRole("button", { name: /^Replay delivery / }).first().click();
    await deliveries.getByText("test.ping", { exact: true }).nth(1).waitFor();
    // Only the pings: an incident event may reach the endpoint meanwhile.
    const pings = () => receiver.received.slice(before).filter((r) => (JSON.parse(r.body) as { type: string }).type === "test.ping");
    await waitFor(() => pings().length === 2, { timeoutMs: 10_000, what: "the test and its replay" });
    const [test, replay] = pings();
    expect(replay!.headers["webhook-id"]).toBe(test!.headers["webhook-id"]);
    // During a rotation both secrets sign: the new one verifies.
    receiver.verify(rotated, replay);

    const rules = op.page.getByRole("table", { name: "Alert rules" });
    await op.page.getByRole("button", { name: "Edit rule burst" }).click();
    const edit = op.page.getByRole("form", { name: "Edit rule burst" });
    await edit.getByLabel("Threshold").fill("75");
    await edit.getByRole("button", { name: "Save rule" }).click();
    await rules.getByText(/error_rate > 75 over 1m/).waitFor();
    await op.page.getByRole("button", { name: "Disable rule burst" }).click();
    await op.page.getByRole("button", { name: "Enable rule burst" }).waitFor();
    await op.page.getByRole("button", { name: "Delete rule burst" }).click();
    await op.page.getByRole("dialog").getByRole("button", { name: "Delete", exact: true }).click();
    await rules.getByText("burst", { exact: true }).waitFor({ state: "detached" });

    await op.page.getByRole("button", { name: `Delete endpoint ${receiver.url}` }).click();
    await op.page.getByRole("dialog").getByRole("button", { name: "Delete", exact: true }).click();
    await op.page.getByText("No webhook endpoint yet.").waitFor();
    expect(op.problems).toEqual([]);
    expect(op.foreign).toEqual([]);
  } finally {
    await op.context.close();
  }
}, TEST_MS * 2);
