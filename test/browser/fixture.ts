// One compiled gw from an empty directory and one headless chromium per test file; the hooks' long
// timeouts cover the first build of dist/gw and chromium's start on a loaded machine.
import { afterAll, beforeAll } from "bun:test";
import type { Browser } from "playwright-core";
import { type GwProcess, startGwBinary } from "../helpers/gw-binary.ts";
import { launchBrowser } from "../helpers/browser.ts";

export const HOOK_MS = 240_000;
/** Per test: page loads and waits on a 2-core box shared with other work. */
export const TEST_MS = 90_000;

export interface Suite {
  gw: GwProcess;
  browser: Browser;
}

/** Registers beforeAll/afterAll for the file; the returned object is filled in by beforeAll. */
export function browserSuite(env: Record<string, string> = {}): Suite {
  const suite = {} as Suite;
  beforeAll(async () => {
    const [gw, browser] = await Promise.all([startGwBinary({ env }), launchBrowser()]);
    suite.gw = gw;
    suite.browser = browser;
  }, HOOK_MS);
  afterAll(async () => {
    await suite.browser?.close();
    await suite.gw?.stop();
  }, 60_000);
  return suite;
}
