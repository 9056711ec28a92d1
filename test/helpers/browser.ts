// Headless chromium for the dashboard's browser tests (playwright-core driving the system's chromium;
// `make chromium` installs Debian's). Every page opened here records console problems and every
// request to a host other than the gateway's, so a test can require both lists to stay empty.
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { existsSync } from "node:fs";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

export function chromiumPath(): string {
  const given = process.env.CHROMIUM_PATH;
  const found = given ?? CANDIDATES.find((p) => existsSync(p));
  if (!found) throw new Error("chromium not found: run `make chromium` (apt-get install -y chromium) or set CHROMIUM_PATH");
  return found;
}

export function launchBrowser(): Promise<Browser> {
  // --no-sandbox: CI and this machine run as root, where chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
}

export interface Watched {
  context: BrowserContext;
  page: Page;
  /** Console messages of type error or warning, and uncaught page errors. */
  problems: string[];
  /** URLs of requests to any origin other than the gateway's. */
  foreign: string[];
  /** Every request URL the page made. */
  requests: string[];
}

/** A fresh context (own cookies) at 1280x800 whose page is watched for console problems and foreign requests. */
export async function watchedPage(browser: Browser, origin: string): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems: string[] = [];
  const foreign: string[] = [];
  const requests: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()} (${m.location().url})`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  // Watched on the context so requests from workers and popups count too.
  context.on("request", (r) => {
    const url = r.url();
    requests.push(url);
    if (!url.startsWith(origin + "/") && url !== origin && !url.startsWith("data:") && !url.startsWith("blob:")) foreign.push(url);
  });
  return { context, page, problems, foreign, requests };
}

/** Signs in through the sign-in page (docs/dashboard.md "Pages") and waits for the Overview h1. */
export async function signIn(page: Page, origin: string, token: string): Promise<void> {
  await page.goto(`${origin}/`);
  await page.getByLabel("Admin token or API key").fill(token);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
}

/** The one h1's text once exactly one is shown (waits for it). */
export async function onlyH1(page: Page): Promise<string> {
  const h1 = page.locator("h1");
  await h1.first().waitFor();
  const count = await h1.count();
  if (count !== 1) throw new Error(`expected exactly one h1, found ${count}`);
  return (await h1.textContent())?.trim() ?? "";
}

/** Buttons, links and form controls without an accessible name (text, aria-label, aria-labelledby,
 * title, or a label for a control), as short HTML excerpts; every one is a finding. */
export function unnamedControls(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const named = (el) => {
      if ((el.getAttribute("aria-label") || "").trim() || (el.getAttribute("title") || "").trim()) return true;
      const by = el.getAttribute("aria-labelledby");
      if (by && by.split(/\\s+/).some((id) => (document.getElementById(id)?.textContent || "").trim())) return true;
      if (el.matches("input, select, textarea")) return (el.labels && [...el.labels].some((l) => l.textContent.trim())) || (el.type === "submit" && el.value);
      return (el.textContent || "").trim() !== "" || [...el.querySelectorAll("img[alt], svg[aria-label]")].length > 0;
    };
    const controls = document.querySelectorAll("button, a[href], input:not([type=hidden]), select, textarea, [role=button]");
    return [...controls].filter((el) => !named(el)).map((el) => el.outerHTML.slice(0, 160));
  })()`);
}
