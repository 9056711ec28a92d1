// Screenshots of every dashboard page at 1280x800 for docs/dashboard.md "Pages": a compiled gw from an
// empty directory (GW_TEST_BINARY, else built into a temp dir), some seeded test-mode traffic, an
// operator session. Run: bun run scripts/dashboard-screenshots.ts
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { launchBrowser, signIn } from "../test/helpers/browser.ts";
import { startGwBinary } from "../test/helpers/gw-binary.ts";
import { chat, projectWithKey } from "../test/browser/gw-api.ts";

const OUT = resolve(import.meta.dir, "../docs/dashboard");
mkdirSync(OUT, { recursive: true });

const gw = await startGwBinary();
const browser = await launchBrowser();
try {
  const key = gw.testKey!;
  const questions = ["What is the capital of France?", "Summarise the plot of Hamlet in two sentences.",
    "Write a Python function that reverses a string.", "Translate 'good morning' into Spanish.", "Explain how TCP handshakes work."];
  let detailId = "";
  for (let round = 0; round < 3; round++) {
    for (const [i, q] of questions.entries()) {
      const r = await chat(gw, key, q, { "x-gw-trace-id": `trc-docs-${i}` }, { metadata: { task: i % 2 ? "support" : "search" }, gw: { workflow_id: "wf-docs" } });
      if (!detailId && round === 0) detailId = r.id;
    }
  }
  for (const name of ["fallback", "rate_limited", "upstream_error", "timeout"]) await chat(gw, key, `Simulated ${name}`, {}, { model: `gw-test:${name}` });
  await projectWithKey(gw, "acme", ["chat", "requests"]);

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const shot = async (name: string) => {
    await page.waitForLoadState("networkidle");
    await page.screenshot({ path: `${OUT}/${name}.png` });
    console.log(`docs/dashboard/${name}.png`);
  };
  await page.goto(`${gw.origin}/`);
  await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
  await shot("sign-in");
  await signIn(page, gw.origin, gw.adminToken);
  const pages: [name: string, path: string, h1: string][] = [
    ["overview", "/?period=1h", "Overview"], ["requests", "/requests", "Requests"], ["request-detail", `/requests/${detailId}`, detailId],
    ["cache", "/cache", "Cache"], ["recommendations", "/recommendations", "Recommendations"], ["projects", "/projects", "Projects"],
    ["monitoring", "/monitoring", "Monitoring"], ["audit", "/audit?audit=all", "Audit log"],
  ];
  for (const [name, path, h1] of pages) {
    await page.goto(`${gw.origin}${path}`);
    await page.getByRole("heading", { level: 1, name: h1, exact: true }).waitFor();
    await shot(name);
  }
} finally {
  await browser.close();
  await gw.stop();
}
