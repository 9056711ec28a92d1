// The Cache page's Empty cache of the compiled gw (docs/dashboard.md "Pages"): after a confirmation it
// says how many answers it deleted, the audit log shows it, and the next identical request is a miss
// (X-Gw-Cache, docs/api.md).
import { expect, test } from "bun:test";
import { signIn, watchedPage } from "../helpers/browser.ts";
import { chat } from "./gw-api.ts";
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
