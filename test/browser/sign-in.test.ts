// Sign-in against the compiled gw from an empty directory (docs/dashboard.md "Pages"): the first-run
// banner's key and the admin token both sign in, each to its role; the sign-in page itself is
// served with the CSP, holds no inline script, logs nothing and fetches nothing foreign.
import { expect, test } from "bun:test";
import { onlyH1, signIn, unnamedControls, watchedPage } from "../helpers/browser.ts";
import { chat } from "./gw-api.ts";
import { browserSuite, TEST_MS } from "./fixture.ts";

const s = browserSuite();

const CSP_PARTS = ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"];

test("the first start prints a test key and the dashboard's URL", () => {
  expect(s.gw.testKey).toMatch(/^gw_test_/);
  expect(s.gw.output()).toContain(`Dashboard: ${s.gw.origin}/`);
}, TEST_MS);

test("the sign-in page's HTML: strict CSP and the other headers, no inline script or style", async () => {
  const res = await fetch(`${s.gw.origin}/`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/html");
  const csp = res.headers.get("content-security-policy") ?? "";
  for (const part of CSP_PARTS) expect(csp).toContain(part);
  expect(csp).not.toContain("unsafe-inline");
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("x-frame-options")).toBe("DENY");
  expect(res.headers.get("referrer-policy")).toBe("no-referrer");
  const html = await res.text();
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
  expect(scripts.length).toBeGreaterThan(0);
  for (const [, attrs, body] of scripts) {
    expect(attrs).toMatch(/\bsrc="\/assets\/[^"]+"/);
    expect(body!.trim()).toBe("");
  }
  expect(html).not.toMatch(/<style\b/i);
  expect(html).not.toMatch(/\sstyle=/i);
  expect(html).not.toMatch(/\son[a-z]+=/i);
  expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
}, TEST_MS);

test("the sign-in page renders its one h1 with no console problems and no foreign requests", async () => {
  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await w.page.goto(`${s.gw.origin}/`);
    expect(await onlyH1(w.page)).toBe("Sign in");
    await w.page.getByLabel("Admin token or API key").waitFor();
    await w.page.getByLabel("Work e-mail").waitFor();
    await w.page.getByRole("button", { name: "Sign in with SSO" }).waitFor();
    expect(await unnamedControls(w.page)).toEqual([]);
    expect(w.problems).toEqual([]);
    expect(w.foreign).toEqual([]);
  } finally {
    await w.context.close();
  }
}, TEST_MS);

test("a wrong token is refused with an alert and no session", async () => {
  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await w.page.goto(`${s.gw.origin}/`);
    await w.page.getByLabel("Admin token or API key").fill("gw_test_not-a-real-key");
    await w.page.getByRole("button", { name: "Sign in", exact: true }).click();
    await w.page.getByRole("alert").waitFor();
    expect(await onlyH1(w.page)).toBe("Sign in");
    expect((await w.context.cookies()).filter((c) => c.name === "gw_session")).toEqual([]);
    // The browser itself logs the refused call's 401 (the contract's answer); nothing else may appear.
    expect(w.problems.filter((p) => !/status of 401 .*\/dashboard\/api\/session\)$/.test(p))).toEqual([]);
    expect(w.foreign).toEqual([]);
  } finally {
    await w.context.close();
  }
}, TEST_MS);

test("the admin token signs in as operator: every nav link, the project switcher, sign-out", async () => {
  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(w.page, s.gw.origin, s.gw.adminToken);
    for (const name of ["Overview", "Requests", "Cache", "Recommendations", "Projects", "Monitoring", "Audit log"]) {
      await w.page.getByRole("link", { name, exact: true }).waitFor();
    }
    await w.page.getByLabel("Project", { exact: true }).waitFor();
    const cookie = (await w.context.cookies()).find((c) => c.name === "gw_session");
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe("Strict");
    await w.page.getByRole("button", { name: "Sign out" }).click();
    await w.page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
    expect(w.problems).toEqual([]);
    expect(w.foreign).toEqual([]);
  } finally {
    await w.context.close();
  }
}, TEST_MS);

test("the first-run key signs in to its own project: no Projects link, no project switcher, its requests listed", async () => {
  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    const made = await chat(s.gw, s.gw.testKey!, "Hello!");
    await signIn(w.page, s.gw.origin, s.gw.testKey!);
    expect(await w.page.getByRole("link", { name: "Projects", exact: true }).count()).toBe(0);
    expect(await w.page.getByLabel("Project", { exact: true }).count()).toBe(0);
    await w.page.getByRole("link", { name: "Requests", exact: true }).click();
    await w.page.getByRole("link", { name: made.id, exact: true }).waitFor();
    expect(w.problems).toEqual([]);
    expect(w.foreign).toEqual([]);
  } finally {
    await w.context.close();
  }
}, TEST_MS);

test("the first load, through sign-in to the Overview, fetches at most 60 KB of gzipped JS and 10 KB of CSS", async () => {
  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(w.page, s.gw.origin, s.gw.adminToken);
    await w.page.waitForLoadState("networkidle");
    // encodedBodySize: the bytes on the wire (gzip), as the browser received them.
    const entries = (await w.page.evaluate(
      `performance.getEntriesByType("resource").map((e) => [e.name, e.encodedBodySize])`,
    )) as [string, number][];
    const sum = (ext: string) => entries.filter(([url]) => new URL(url).pathname.endsWith(ext)).reduce((n, [, bytes]) => n + bytes, 0);
    expect(sum(".js")).toBeGreaterThan(0);
    expect(sum(".js")).toBeLessThanOrEqual(60 * 1024);
    expect(sum(".css")).toBeLessThanOrEqual(10 * 1024);
  } finally {
    await w.context.close();
  }
}, TEST_MS);
