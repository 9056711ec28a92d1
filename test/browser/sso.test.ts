// SSO in a real browser against the compiled gw and the scripted OpenID Connect provider
// (docs/dashboard.md "Single sign-on (OIDC)"): the Work e-mail form goes to the provider and back,
// and the SameSite=Strict session cookie is sent on the page gw lands on (a 302 would lose it).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { watchedPage } from "../helpers/browser.ts";
import { type ScriptedOidc, startScriptedOidc } from "../helpers/scripted-oidc.ts";
import { adminCall } from "./gw-api.ts";
import { browserSuite, TEST_MS } from "./fixture.ts";

const s = browserSuite();
let idp: ScriptedOidc;
beforeAll(async () => {
  idp = await startScriptedOidc();
}, 60_000);
afterAll(async () => {
  await idp?.stop();
}, 60_000);

test("Sign in with SSO: to the provider and back, signed in to the domain's project with the e-mail shown", async () => {
  const project = await adminCall<{ id: string }>(s.gw, "POST", "/projects", { name: "corp", plan: "business" });
  await adminCall(s.gw, "PUT", `/projects/${project.id}/sso`, { issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret, allowed_domains: ["example.com"] });
  idp.next = { email: "alice@example.com" };

  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await w.page.goto(`${s.gw.origin}/`);
    await w.page.getByLabel("Work e-mail").fill("alice@example.com");
    await w.page.getByRole("button", { name: "Sign in with SSO" }).click();
    await w.page.getByRole("heading", { level: 1, name: "Overview", exact: true }).waitFor();
    expect(new URL(w.page.url()).searchParams.get("project")).toBe(project.id);
    await w.page.getByText("alice@example.com").first().waitFor();
    expect(await w.page.getByLabel("Project", { exact: true }).count()).toBe(0);
    expect(idp.tokenCalls).toEqual([{ ok: true, reason: null }]);
    // The provider is the only other host the browser may visit.
    expect(w.foreign.filter((url) => !url.startsWith(`${idp.issuer}/`))).toEqual([]);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, TEST_MS);

// Chromium may ask a page that declares no icon for /favicon.ico, and log the 404.
test("the SSO landing page gives a browser no reason to fetch a missing /favicon.ico", async () => {
  idp.next = { email: "carol@example.com" };
  const start = await fetch(`${s.gw.origin}/dashboard/api/sso/start`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "carol@example.com" }) });
  const { redirect_url } = (await start.json()) as { redirect_url: string };
  const back = await fetch(redirect_url, { redirect: "manual" });
  const landing = await fetch(back.headers.get("location") ?? "", { redirect: "manual" });
  expect(landing.status).toBe(200);
  const html = await landing.text();
  const declaresIcon = /<link[^>]+rel="icon"/.test(html);
  expect(declaresIcon || (await fetch(`${s.gw.origin}/favicon.ico`)).ok).toBe(true);
}, TEST_MS);

test("an e-mail domain without SSO is refused on the sign-in page with an alert", async () => {
  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await w.page.goto(`${s.gw.origin}/`);
    await w.page.getByLabel("Work e-mail").fill("bob@nowhere.example");
    await w.page.getByRole("button", { name: "Sign in with SSO" }).click();
    await w.page.getByRole("alert").filter({ hasText: /SSO/ }).waitFor();
    // Only the browser's own line for the 404 answer.
    expect(w.problems.filter((p) => !/status of 404 .*\/dashboard\/api\/sso\/start\)$/.test(p))).toEqual([]);
    expect(w.foreign).toEqual([]);
  } finally {
    await w.context.close();
  }
}, TEST_MS);
