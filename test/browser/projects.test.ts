// The Projects page of the compiled gw, operator only (docs/dashboard.md "Pages"): a project made in
// the form joins the list and the switcher, a key made there (its secret shown once) signs in to that
// project, and revoking it ends that session at its next call; credits are added.
import { expect, test } from "bun:test";
import { signIn, watchedPage } from "../helpers/browser.ts";
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
