// Every dashboard page of the compiled gw (docs/dashboard.md "Pages"), signed in as operator after
// some traffic: each renders exactly one h1 naming it, logs no console error or warning, fetches
// nothing but the gateway, and its response carries the CSP; the nav links reach every page.
import { expect, test } from "bun:test";
import { onlyH1, signIn, unnamedControls, watchedPage } from "../helpers/browser.ts";
import { chat, dashSession, projectWithKey } from "./gw-api.ts";
import { browserSuite, TEST_MS } from "./fixture.ts";

const s = browserSuite();

const NAV: [link: string, h1: string][] = [
  ["Overview", "Overview"], ["Requests", "Requests"], ["Cache", "Cache"], ["Recommendations", "Recommendations"],
  ["Projects", "Projects"], ["Monitoring", "Monitoring"], ["Status page", "Status page"], ["Audit log", "Audit log"],
];

async function traffic(): Promise<string> {
  const first = await chat(s.gw, s.gw.testKey!, "What is the capital of France?");
  await chat(s.gw, s.gw.testKey!, "What is the capital of France?");
  await chat(s.gw, s.gw.testKey!, "Write a haiku about gateways.");
  expect(first.status).toBe(200);
  return first.id;
}

test("each page renders its one h1, names every control, logs no console problem and fetches nothing foreign", async () => {
  const requestId = await traffic();
  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(w.page, s.gw.origin, s.gw.adminToken);
    const paths: [string, string][] = [
      ["/", "Overview"], ["/requests", "Requests"], [`/requests/${requestId}`, requestId], ["/cache", "Cache"],
      ["/recommendations", "Recommendations"], ["/projects", "Projects"], ["/monitoring", "Monitoring"], ["/status-admin", "Status page"],
      ["/audit", "Audit log"],
    ];
    for (const [path, h1] of paths) {
      const res = await w.page.goto(`${s.gw.origin}${path}`);
      expect(res?.status()).toBe(200);
      expect(res?.headers()["content-security-policy"]).toContain("default-src 'none'");
      await w.page.getByRole("heading", { level: 1, name: h1 }).waitFor();
      // Data arrives after the h1: wait until nothing is loading before judging the console.
      await w.page.waitForLoadState("networkidle");
      // The detail's h1 may hold a `test` badge after the id.
      expect({ path, h1: (await onlyH1(w.page)).replace(/\s*test$/, "") }).toEqual({ path, h1 });
      expect({ path, problems: w.problems }).toEqual({ path, problems: [] });
      expect({ path, unnamed: await unnamedControls(w.page) }).toEqual({ path, unnamed: [] });
      expect({ path, foreign: w.foreign }).toEqual({ path, foreign: [] });
    }
  } finally {
    await w.context.close();
  }
}, TEST_MS * 2);

test("the nav links reach every page, client-side, keeping ?project=", async () => {
  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(w.page, s.gw.origin, s.gw.adminToken);
    for (const [link, h1] of NAV) {
      await w.page.getByRole("link", { name: link, exact: true }).click();
      await w.page.getByRole("heading", { level: 1, name: h1, exact: true }).waitFor();
    }
    // The operator's switcher writes the project into the URL; links carry it on.
    const select = w.page.getByLabel("Project", { exact: true });
    const project = await select.inputValue();
    expect(project).toMatch(/^prj_/);
    await w.page.goto(`${s.gw.origin}/requests?project=${project}`);
    await w.page.getByRole("heading", { level: 1, name: "Requests", exact: true }).waitFor();
    for (const [link] of NAV) {
      expect(await w.page.getByRole("link", { name: link, exact: true }).getAttribute("href")).toContain(`project=${project}`);
    }
    await w.page.waitForLoadState("networkidle");
    expect(w.problems).toEqual([]);
    expect(w.foreign).toEqual([]);
  } finally {
    await w.context.close();
  }
}, TEST_MS * 2);

test("the Recommendations page states the rule the API answers", async () => {
  const api = await dashSession(s.gw, s.gw.adminToken);
  const { rule } = (await (await api.get("/recommendations")).json()) as { rule: string };
  expect(rule.length).toBeGreaterThan(20);
  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(w.page, s.gw.origin, s.gw.adminToken);
    await w.page.getByRole("link", { name: "Recommendations", exact: true }).click();
    await w.page.getByText(rule).waitFor();
  } finally {
    await w.context.close();
  }
}, TEST_MS);

test("the operator's project switcher puts the project in the URL and the Requests page follows it", async () => {
  const other = await projectWithKey(s.gw, "switched", ["chat", "requests"]);
  const theirs = await chat(s.gw, other.key, "A request of the switched-to project.");
  const ours = await chat(s.gw, s.gw.testKey!, "A request of the first project.");
  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(w.page, s.gw.origin, s.gw.adminToken);
    await w.page.getByRole("link", { name: "Requests", exact: true }).click();
    await w.page.getByRole("link", { name: ours.id, exact: true }).waitFor();
    await w.page.getByLabel("Project", { exact: true }).selectOption(other.projectId);
    await w.page.waitForURL((url) => url.searchParams.get("project") === other.projectId);
    await w.page.getByRole("link", { name: theirs.id, exact: true }).waitFor();
    expect(await w.page.getByRole("link", { name: ours.id, exact: true }).count()).toBe(0);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, TEST_MS);
