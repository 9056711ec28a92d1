// Screenshots of every dashboard page at 1280x800 for docs/dashboard.md "Pages": a compiled gw from an
// empty directory (GW_TEST_BINARY, else built into a temp dir) in front of two scripted upstreams,
// some live and test traffic, an operator session. Run: bun run scripts/dashboard-screenshots.ts
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { launchBrowser, signIn } from "../test/helpers/browser.ts";
import { startGwBinary } from "../test/helpers/gw-binary.ts";
import { startScriptedUpstream } from "../test/helpers/scripted-upstream.ts";
import { startWebhookReceiver } from "../test/helpers/webhook-receiver.ts";
import { adminCall, chat, projectWithKey } from "../test/browser/gw-api.ts";

const OUT = resolve(import.meta.dir, "../docs/dashboard");
mkdirSync(OUT, { recursive: true });

const openai = await startScriptedUpstream();
const deepseek = await startScriptedUpstream({ delayMs: 40 });
const receiver = startWebhookReceiver();
const gw = await startGwBinary({
  env: { OPENAI_API_KEY: "sk-docs", OPENAI_BASE_URL: openai.url, DEEPSEEK_API_KEY: "sk-docs", DEEPSEEK_BASE_URL: deepseek.url, GW_WEBHOOK_ALLOW_LOOPBACK: "1" },
});
const browser = await launchBrowser();
try {
  const projectId = gw.output().match(/prj_[0-9a-z]+/)![0];
  const { key } = await adminCall<{ key: string }>(gw, "POST", `/projects/${projectId}/keys`, { name: "docs", mode: "live", scopes: ["chat", "requests", "cache"] });
  const questions = ["What is the capital of France?", "Summarise the plot of Hamlet in two sentences.",
    "Write a Python function that reverses a string.", "Translate 'good morning' into Spanish.", "Explain how TCP handshakes work.",
    "List three uses of a hash map.", "What year did the Berlin Wall fall?", "Rewrite this sentence more formally: we gotta ship it."];
  let detailId = "";
  // Enough live traffic, with exact repeats, for the semantic-cache recommendation (100 requests, 10% hits).
  for (let round = 0; round < 15; round++) {
    for (const [i, q] of questions.entries()) {
      const r = await chat(gw, key, round % 3 === 2 ? q : `${q} (${round})`, { "x-gw-trace-id": `trc-docs-${i}` },
        { metadata: { task: i % 2 ? "support" : "search" }, gw: { workflow_id: `wf-docs-${i % 3}` }, tags: [`team:${i % 2 ? "support" : "growth"}`] });
      if (!detailId && round === 0 && i === 2) detailId = r.id;
    }
  }
  // A few upstream failures (some answered by the other provider) and test-mode requests.
  openai.script({ status: 500, body: { error: { message: "scripted outage", type: "server_error" } } }, 4);
  for (let i = 0; i < 4; i++) await chat(gw, key, `A request during an outage (${i})`);
  for (const name of ["fallback", "rate_limited", "upstream_error"]) await chat(gw, gw.testKey!, `Simulated ${name}`, {}, { model: `gw-test:${name}` });
  await chat(gw, gw.testKey!, "Hello from a test key!");
  await projectWithKey(gw, "acme", ["chat", "requests"]);
  await adminCall(gw, "PATCH", `/projects/${projectId}`, { plan: "business" });
  // The Monitoring and Status page admin pages: an endpoint with a test delivery, a rule, a maintenance window.
  const hook = await adminCall<{ id: string }>(gw, "POST", `/projects/${projectId}/webhooks`, { url: receiver.url, description: "on-call receiver" });
  await adminCall(gw, "POST", `/webhooks/${hook.id}/test`);
  await adminCall(gw, "POST", `/projects/${projectId}/alert-rules`, { name: "Errors above 5%", metric: "error_rate", op: "gt", threshold: 5, window: "5m", min_requests: 20, for: "2m" });
  await adminCall(gw, "POST", "/status/maintenances", {
    name: "Database upgrade", components: ["api"], body: "Writes may be slow for a few minutes.",
    scheduled_for: new Date(Date.now() + 86_400_000).toISOString(), scheduled_until: new Date(Date.now() + 90_000_000).toISOString(),
  });

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
    ["monitoring", "/monitoring", "Monitoring"], ["status-admin", "/status-admin", "Status page"], ["audit", "/audit?audit=all", "Audit log"],
  ];
  for (const [name, path, h1] of pages) {
    await page.goto(`${gw.origin}${path}`);
    await page.getByRole("heading", { level: 1, name: h1, exact: true }).waitFor();
    await shot(name);
  }
} finally {
  await browser.close();
  await gw.stop();
  await Promise.all([openai.stop(), deepseek.stop(), receiver.stop()]);
}
