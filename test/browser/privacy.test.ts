// What the dashboard of the compiled gw never shows (docs/dashboard.md "Pages"): another project's
// requests to a project key's session, and the content of prompts, on any page or in any JSON of
// /dashboard/api.
import { expect, test } from "bun:test";
import { signIn, watchedPage } from "../helpers/browser.ts";
import { chat, dashSession, projectWithKey } from "./gw-api.ts";
import { browserSuite, TEST_MS } from "./fixture.ts";

const s = browserSuite();

test("a project key's session cannot see another project: 404 for its request, no switcher", async () => {
  // The first-run key's project is the other one here; "mine" is a project made with a key to sign in.
  const mine = await projectWithKey(s.gw, "mine", ["chat", "requests"]);
  const theirs = await chat(s.gw, s.gw.testKey!, "A request of the first project.");
  const ours = await chat(s.gw, mine.key, "A request of my own project.");
  expect([theirs.status, ours.status]).toEqual([200, 200]);
  const firstProject = s.gw.output().match(/prj_[0-9a-z]+/)?.[0];
  expect(firstProject).toBeTruthy();

  const api = await dashSession(s.gw, mine.key);
  expect((await api.get(`/requests/${theirs.id}`)).status).toBe(404);
  expect((await api.get(`/requests?project=${firstProject}`)).status).toBe(404);
  expect((await api.get(`/requests/${ours.id}`)).status).toBe(200);
  const listed = (await (await api.get("/requests")).json()) as { data: { request_id: string }[] };
  expect(listed.data.map((r) => r.request_id)).toContain(ours.id);
  expect(listed.data.map((r) => r.request_id)).not.toContain(theirs.id);
  const projects = (await (await api.get("/projects")).json()) as { data: { id: string }[] };
  expect(projects.data.map((p) => p.id)).toEqual([mine.projectId]);

  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(w.page, s.gw.origin, mine.key);
    await w.page.getByRole("link", { name: "Requests", exact: true }).click();
    await w.page.getByRole("link", { name: ours.id, exact: true }).waitFor();
    expect(await w.page.getByRole("link", { name: theirs.id, exact: true }).count()).toBe(0);
    expect(await w.page.getByLabel("Project", { exact: true }).count()).toBe(0);
    expect(await w.page.getByRole("link", { name: "Projects", exact: true }).count()).toBe(0);
    await w.page.goto(`${s.gw.origin}/requests/${theirs.id}`);
    await w.page.getByRole("alert").first().waitFor();
    expect(await w.page.getByText("Selected model").count()).toBe(0);
    // Only the browser's own line for the 404 answer.
    expect(w.problems.filter((p) => !p.includes(`status of 404 (Not Found) (${s.gw.origin}/dashboard/api/requests/${theirs.id}`))).toEqual([]);
    expect(w.foreign).toEqual([]);
  } finally {
    await w.context.close();
  }
}, TEST_MS * 2);

test("a marker sent inside prompts appears on no page and in no dashboard JSON", async () => {
  const marker = `zq${crypto.randomUUID().replaceAll("-", "")}`;
  const sent = [
    await chat(s.gw, s.gw.testKey!, `Please remember the word ${marker}.`),
    await chat(s.gw, s.gw.testKey!, `Please remember the word ${marker}.`),
    await chat(s.gw, s.gw.testKey!, `${marker} ${marker} what did I say?`),
  ];
  for (const r of sent) expect(r.status).toBe(200);
  const id = sent[0]!.id;

  // Every dashboard API answer the browser receives, read in full.
  const w = await watchedPage(s.browser, s.gw.origin);
  const seen: { url: string; body: Promise<string> }[] = [];
  w.page.on("response", (res) => {
    if (res.url().includes("/dashboard/api/")) seen.push({ url: res.url(), body: res.text().catch(() => "") });
  });
  try {
    await signIn(w.page, s.gw.origin, s.gw.adminToken);
    for (const path of ["/", "/requests", `/requests/${id}`, "/cache", "/recommendations", "/projects", "/monitoring", "/audit"]) {
      await w.page.goto(`${s.gw.origin}${path}`);
      await w.page.locator("h1").first().waitFor();
      await w.page.waitForLoadState("networkidle");
      const html = await w.page.content();
      const text = await w.page.locator("body").innerText();
      expect({ path, inHtml: html.includes(marker), inText: text.includes(marker) }).toEqual({ path, inHtml: false, inText: false });
    }
    expect(seen.length).toBeGreaterThan(0);
    for (const r of seen) expect({ url: r.url, leaks: (await r.body).includes(marker) }).toEqual({ url: r.url, leaks: false });
  } finally {
    await w.context.close();
  }

  // And every GET of the API, the exports included, for both roles.
  const project = await projectWithKey(s.gw, "marker", ["chat", "requests"]);
  const again = await chat(s.gw, project.key, `Again: ${marker}`);
  expect(again.status).toBe(200);
  for (const [token, own] of [[s.gw.adminToken, id], [project.key, again.id]] as const) {
    const api = await dashSession(s.gw, token);
    expect((await api.get(`/requests/${own}`)).status).toBe(200);
    const paths = ["/session", "/projects", "/overview", "/overview?period=1h", "/requests", `/requests/${own}`, "/cache",
      "/recommendations", "/monitoring", "/audit", "/requests/export?format=csv", "/requests/export?format=ndjson"];
    for (const path of paths) {
      const res = await api.get(path);
      const body = await res.text();
      expect({ path, status: res.status < 500, leaks: body.includes(marker) }).toEqual({ path, status: true, leaks: false });
    }
  }
}, TEST_MS * 2);
