// The Cache page on the compiled gw (docs/dashboard.md "Pages"): Empty cache (confirmed, counted, audited;
// the next identical request misses, by X-Gw-Cache of docs/api.md), Invalidate by tag, neither without
// scope cache, and no hit-rate cards when the project's cache is off.
import { expect, test } from "bun:test";
import { signIn, watchedPage } from "../helpers/browser.ts";
import { adminCall, chat, dashSession, projectWithKey } from "./gw-api.ts";
import { browserSuite, TEST_MS } from "./fixture.ts";

const s = browserSuite();

test("Empty cache, confirmed, deletes the cached answers: audited, and the next identical request is a miss", async () => {
  const prompt = `What is the boiling point of water? (${Date.now().toString(36)})`;
  expect((await chat(s.gw, s.gw.testKey!, prompt)).cache).toBe("miss");
  expect((await chat(s.gw, s.gw.testKey!, prompt)).cache).toBe("exact");

  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(w.page, s.gw.origin, s.gw.adminToken);
    await w.page.getByRole("link", { name: "Cache", exact: true }).click();
    await w.page.getByRole("heading", { level: 1, name: "Cache", exact: true }).waitFor();
    await w.page.getByRole("button", { name: "Empty cache" }).click();
    const dialog = w.page.getByRole("dialog");
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Empty", exact: true }).click();
    const status = w.page.getByRole("status").filter({ hasText: /Deleted \d+ cached answers?/ });
    await status.waitFor();
    const deleted = Number((await status.textContent())?.match(/Deleted (\d+)/)?.[1]);
    expect(deleted).toBeGreaterThanOrEqual(1);
    // The audit log names the act (docs/dashboard.md "Audit log").
    await w.page.getByRole("link", { name: "Audit log", exact: true }).click();
    await w.page.getByRole("heading", { level: 1, name: "Audit log", exact: true }).waitFor();
    await w.page.getByText("cache.empty", { exact: true }).first().waitFor();
    expect(w.problems).toEqual([]);
    expect(w.foreign).toEqual([]);
  } finally {
    await w.context.close();
  }
  expect((await chat(s.gw, s.gw.testKey!, prompt)).cache).toBe("miss");
}, TEST_MS);

test("Invalidate by tag deletes only the answers cached under that tag", async () => {
  const run = Date.now().toString(36);
  const tagged = (tag: string) => ({ gw: { cache: { tags: [tag] } } });
  const a = `Name a primary colour. (${run})`;
  const b = `Name a secondary colour. (${run})`;
  for (const [prompt, tag] of [[a, `docs-a-${run}`], [b, `docs-b-${run}`]]) {
    expect((await chat(s.gw, s.gw.testKey!, prompt!, {}, tagged(tag!))).cache).toBe("miss");
    expect((await chat(s.gw, s.gw.testKey!, prompt!, {}, tagged(tag!))).cache).toBe("exact");
  }
  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(w.page, s.gw.origin, s.gw.testKey!);
    await w.page.getByRole("link", { name: "Cache", exact: true }).click();
    await w.page.getByLabel("Tags", { exact: true }).fill(`docs-a-${run}`);
    await w.page.getByRole("button", { name: "Invalidate", exact: true }).click();
    await w.page.getByRole("status").filter({ hasText: "Deleted 1 cached answer" }).waitFor();
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
  expect((await chat(s.gw, s.gw.testKey!, a, {}, tagged(`docs-a-${run}`))).cache).toBe("miss");
  expect((await chat(s.gw, s.gw.testKey!, b, {}, tagged(`docs-b-${run}`))).cache).toBe("exact");
}, TEST_MS);

test("a key without scope cache sees Empty cache disabled, and the API refuses it with 403", async () => {
  const { key } = await projectWithKey(s.gw, "no-cache-scope", ["chat", "requests"]);
  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(w.page, s.gw.origin, key);
    await w.page.getByRole("link", { name: "Cache", exact: true }).click();
    await w.page.getByRole("heading", { level: 1, name: "Cache", exact: true }).waitFor();
    expect(await w.page.getByRole("button", { name: "Empty cache" }).isDisabled()).toBe(true);
  } finally {
    await w.context.close();
  }
  const api = await dashSession(s.gw, key);
  expect((await api.post("/cache/empty", {})).status).toBe(403);
}, TEST_MS);

test("with the project's cache off, the page says so and hides the hit-rate cards", async () => {
  const project = await adminCall<{ id: string }>(s.gw, "POST", "/projects", { name: "cache-off", policy: { cache: false } });
  const { key } = await adminCall<{ key: string }>(s.gw, "POST", `/projects/${project.id}/keys`, { mode: "test", scopes: ["chat", "requests", "cache"] });
  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(w.page, s.gw.origin, key);
    await w.page.getByRole("link", { name: "Cache", exact: true }).click();
    await w.page.getByText(/Cache is off for this project/).waitFor();
    expect(await w.page.locator('[data-metric="cache_hit_rate"]').count()).toBe(0);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, TEST_MS);
