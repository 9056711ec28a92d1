// The Projects and Audit log pages of the compiled gw (docs/dashboard.md "Pages"): a project and a key
// made in the page (the key signs in; revoked, its session ends), credits added; the audit log shown
// to a project on plan business (its own entries only) and refused, with the reason, on other plans.
import { expect, test } from "bun:test";
import { signIn, watchedPage } from "../helpers/browser.ts";
import { adminCall, projectWithKey } from "./gw-api.ts";
import { browserSuite, TEST_MS } from "./fixture.ts";

const s = browserSuite();

test("create a project and a key in the page, sign in with the key, revoke it, add credits", async () => {
  const name = `made-${Date.now().toString(36)}`;
  const op = await watchedPage(s.browser, s.gw.origin);
  const user = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(op.page, s.gw.origin, s.gw.adminToken);
    await op.page.getByRole("link", { name: "Projects", exact: true }).click();
    await op.page.getByRole("heading", { level: 1, name: "Projects", exact: true }).waitFor();
    await op.page.getByRole("textbox", { name: "Name", exact: true }).fill(name);
    await op.page.getByRole("button", { name: "Create project" }).click();
    await op.page.getByRole("heading", { level: 2, name: new RegExp(`^${name}\\b`) }).waitFor();
    const projectId = new URL(op.page.url()).searchParams.get("project");
    expect(projectId).toMatch(/^prj_/);
    await op.page.getByRole("link", { name, exact: true }).waitFor();
    await op.page.getByLabel("Project", { exact: true }).locator(`option[value="${projectId}"]`).waitFor({ state: "attached" });

    const form = op.page.getByRole("form", { name: "New key" });
    await form.getByLabel("Key name").fill("browser key");
    await form.getByLabel("Mode", { exact: true }).selectOption("test");
    await form.getByRole("checkbox", { name: "requests" }).check();
    await form.getByRole("button", { name: "Create key" }).click();
    const secret = await op.page.getByLabel("New key secret").inputValue();
    expect(secret).toMatch(/^gw_test_/);

    await signIn(user.page, s.gw.origin, secret);
    expect(await user.page.getByLabel("Project", { exact: true }).count()).toBe(0);

    await op.page.getByRole("button", { name: "Revoke key browser key" }).click();
    await op.page.getByRole("dialog").getByRole("button", { name: "Revoke", exact: true }).click();
    await op.page.getByText(/^revoked /).first().waitFor();
    // The revoked key's session ends at its next call: the page falls back to sign-in.
    await user.page.reload();
    await user.page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();

    await op.page.getByLabel("Amount (USD)").fill("5");
    await op.page.getByRole("button", { name: "Add credits" }).click();
    await op.page.getByRole("status").filter({ hasText: "Added $5" }).waitFor();
    expect(op.problems).toEqual([]);
    expect([...op.foreign, ...user.foreign]).toEqual([]);
  } finally {
    await op.context.close();
    await user.context.close();
  }
}, TEST_MS * 2);

test("the Audit log page: plan business shows a project its own entries only; other plans are told why not", async () => {
  const pro = await projectWithKey(s.gw, "on-pro", ["chat", "requests"]);
  const biz = await adminCall<{ id: string }>(s.gw, "POST", "/projects", { name: "on-business", plan: "business" });
  const { key } = await adminCall<{ key: string }>(s.gw, "POST", `/projects/${biz.id}/keys`, { mode: "test", scopes: ["chat", "requests"] });
  await adminCall(s.gw, "POST", `/projects/${biz.id}/credits`, { amount: 3 });

  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(w.page, s.gw.origin, pro.key);
    await w.page.getByRole("link", { name: "Audit log", exact: true }).click();
    await w.page.getByRole("alert").filter({ hasText: "plan business" }).waitFor();

    await w.page.getByRole("button", { name: "Sign out" }).click();
    await signIn(w.page, s.gw.origin, key);
    await w.page.getByRole("link", { name: "Audit log", exact: true }).click();
    await w.page.getByText("credits.add", { exact: true }).first().waitFor();
    await w.page.waitForLoadState("networkidle");
    expect(await w.page.locator("body").innerText()).not.toContain(pro.projectId);
    expect(w.foreign).toEqual([]);
  } finally {
    await w.context.close();
  }
}, TEST_MS);
