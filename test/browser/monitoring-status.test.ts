// The Status page admin page of the compiled gw (docs/dashboard.md "Pages"): the operator schedules a
// maintenance window and the public /status shows it; an incident is posted, updated, resolved and
// deleted; a project session has no such page in its navigation and 403 from its API.
import { expect, test } from "bun:test";
import { signIn, unnamedControls, watchedPage } from "../helpers/browser.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { dashSession, projectWithKey } from "./gw-api.ts";
import { browserSuite, TEST_MS } from "./fixture.ts";

const s = browserSuite();

/** A datetime-local value in this machine's time zone (chromium runs in the same). */
function localInput(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

const statusHtml = async () => (await fetch(`${s.gw.origin}/status`)).text();

test("the operator schedules a maintenance window and /status shows it; an incident is updated, resolved and deleted", async () => {
  const maintenance = `Database upgrade ${Date.now().toString(36)}`;
  const incident = `Slow answers ${Date.now().toString(36)}`;
  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(w.page, s.gw.origin, s.gw.adminToken);
    await w.page.getByRole("link", { name: "Status page", exact: true }).click();
    await w.page.getByRole("heading", { level: 1, name: "Status page", exact: true }).waitFor();

    const m = w.page.getByRole("form", { name: "New maintenance window" });
    await m.getByLabel("Title").fill(maintenance);
    await m.getByLabel("Components").fill("api");
    await m.getByLabel("Starts").fill(localInput(Date.now() - 60_000));
    await m.getByLabel("Ends").fill(localInput(Date.now() + 3_600_000));
    await m.getByLabel("Message").fill("Writes may be slow for a few minutes.");
    await m.getByRole("button", { name: "Schedule maintenance" }).click();
    const posts = w.page.getByRole("table", { name: "Status posts" });
    await posts.getByText(maintenance, { exact: true }).waitFor();
    // The public page caches its body for a few seconds.
    await waitFor(async () => (await statusHtml()).includes(maintenance), { timeoutMs: 15_000, what: "the window on /status" });

    const i = w.page.getByRole("form", { name: "New incident" });
    await i.getByLabel("Title").fill(incident);
    await i.getByLabel("Impact").selectOption("major");
    await i.getByLabel("Message").fill("Investigating slow answers.");
    await i.getByRole("button", { name: "Create incident" }).click();
    const update = w.page.getByRole("form", { name: `Update ${incident}` });
    await update.getByLabel("New status").selectOption("identified");
    await update.getByLabel("Update message").fill("A provider is slow; traffic moved.");
    await update.getByRole("button", { name: "Post update" }).click();
    await posts.getByText("A provider is slow; traffic moved.").waitFor();
    expect(await unnamedControls(w.page)).toEqual([]);
    await update.getByRole("button", { name: "Resolve" }).click();
    await posts.getByText("resolved", { exact: true }).waitFor();

    await w.page.getByRole("button", { name: `Delete ${incident}` }).click();
    await w.page.getByRole("dialog").getByRole("button", { name: "Delete", exact: true }).click();
    await posts.getByText(incident, { exact: true }).waitFor({ state: "detached" });
    await w.page.goto(`${s.gw.origin}/status`);
    await w.page.getByText(maintenance).first().waitFor();
    expect(w.problems).toEqual([]);
    expect(w.foreign).toEqual([]);
  } finally {
    await w.context.close();
  }
}, TEST_MS * 2);

test("a project session: no Status page link, the operator-only text at /status-admin, 403 from the API", async () => {
  const { key } = await projectWithKey(s.gw, "status-viewer", ["chat", "requests"]);
  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(w.page, s.gw.origin, key);
    expect(await w.page.getByRole("link", { name: "Status page" }).count()).toBe(0);
    await w.page.goto(`${s.gw.origin}/status-admin`);
    await w.page.getByText("managed by the operator").waitFor();
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
  const session = await dashSession(s.gw, key);
  expect((await session.get("/monitoring/status/posts")).status).toBe(403);
  expect((await session.post("/monitoring/status/incidents", { name: "x" })).status).toBe(403);
}, TEST_MS);
