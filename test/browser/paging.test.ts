// Cursor paging of the Requests page on the compiled gw (docs/dashboard.md "Pages"): 50 rows a page,
// newest first; Next page puts the cursor in the URL and shows the older rows, First page goes back.
import { expect, test } from "bun:test";
import { signIn, watchedPage } from "../helpers/browser.ts";
import { chat, projectWithKey } from "./gw-api.ts";
import { browserSuite, TEST_MS } from "./fixture.ts";

const s = browserSuite();

test("Next page shows the older requests and First page returns to the newest", async () => {
  const { key } = await projectWithKey(s.gw, "paging", ["chat", "requests"]);
  const ids: string[] = [];
  for (let i = 0; i < 55; i++) ids.push((await chat(s.gw, key, `Request number ${i}`)).id);
  const newest = ids.slice(5).reverse();
  const oldest = ids.slice(0, 5).reverse();

  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(w.page, s.gw.origin, key);
    await w.page.getByRole("link", { name: "Requests", exact: true }).click();
    const listed = w.page.getByRole("link", { name: /^req_/ });
    await w.page.getByRole("link", { name: newest[0]!, exact: true }).waitFor();
    expect(await listed.allTextContents()).toEqual(newest);

    await w.page.getByRole("button", { name: "Next page" }).click();
    await w.page.waitForURL((url) => url.searchParams.has("after"));
    await w.page.getByRole("link", { name: oldest[0]!, exact: true }).waitFor();
    expect(await listed.allTextContents()).toEqual(oldest);

    await w.page.getByRole("link", { name: "First page" }).click();
    await w.page.getByRole("link", { name: newest[0]!, exact: true }).waitFor();
    expect(new URL(w.page.url()).searchParams.has("after")).toBe(false);
    expect(w.problems).toEqual([]);
    expect(w.foreign).toEqual([]);
  } finally {
    await w.context.close();
  }
}, TEST_MS);
