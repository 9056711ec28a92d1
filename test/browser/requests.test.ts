// The Requests page and the request detail of the compiled gw (docs/dashboard.md "Pages"), as operator
// over the first-run key's traffic: new ids listed, filters narrow them (form and URL), the detail's
// span names and selected model, and a 5,000-span trace drawn at once and scrolled to its end.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { decodeTrace, encodeTrace } from "../../src/store/trace-codec.ts";
import type { JsonObject } from "../../src/lib/json.ts";
import { signIn, watchedPage } from "../helpers/browser.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { chat } from "./gw-api.ts";
import { browserSuite, TEST_MS } from "./fixture.ts";

const s = browserSuite();
/** The detail's h1 is the request id (test requests add a `test` badge inside it). */
const requestH1 = (id: string) => new RegExp(`^${id}( test)?$`);
const run = Date.now().toString(36);

test("the Requests page lists the requests just made and the Trace id filter narrows them", async () => {
  const traceA = `trc-a-${run}`;
  const traceB = `trc-b-${run}`;
  const a = [await chat(s.gw, s.gw.testKey!, "Name a river in Europe.", { "x-gw-trace-id": traceA }),
    await chat(s.gw, s.gw.testKey!, "Name a mountain in Asia.", { "x-gw-trace-id": traceA })];
  const b = [await chat(s.gw, s.gw.testKey!, "Name a lake in Africa.", { "x-gw-trace-id": traceB })];
  for (const r of [...a, ...b]) expect(r.status).toBe(200);

  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(w.page, s.gw.origin, s.gw.adminToken);
    await w.page.getByRole("link", { name: "Requests", exact: true }).click();
    await w.page.getByRole("heading", { level: 1, name: "Requests", exact: true }).waitFor();
    for (const r of [...a, ...b]) {
      const link = w.page.getByRole("link", { name: r.id, exact: true });
      await link.waitFor();
      expect(await link.getAttribute("href")).toStartWith(`/requests/${r.id}`);
    }
    // Test-key rows are marked as test.
    await w.page.getByText("test", { exact: true }).first().waitFor();

    await w.page.getByLabel("Trace id", { exact: true }).fill(traceA);
    await w.page.getByRole("button", { name: "Apply filters" }).click();
    await w.page.waitForURL((url) => url.searchParams.get("trace_id") === traceA);
    await w.page.getByRole("link", { name: b[0]!.id, exact: true }).waitFor({ state: "detached" });
    for (const r of a) await w.page.getByRole("link", { name: r.id, exact: true }).waitFor();

    // The filtered view is shareable: loading its URL afresh shows the same narrowing.
    await w.page.reload();
    await w.page.getByRole("link", { name: a[0]!.id, exact: true }).waitFor();
    expect(await w.page.getByRole("link", { name: b[0]!.id, exact: true }).count()).toBe(0);
    expect(w.problems).toEqual([]);
    expect(w.foreign).toEqual([]);
  } finally {
    await w.context.close();
  }
}, TEST_MS * 2);

test("the Workflow, Cache and Status filters narrow the list, through the form and the URL, and the export", async () => {
  const workflow = `wf-${run}`;
  const inWorkflow = { gw: { workflow_id: workflow } };
  const miss = await chat(s.gw, s.gw.testKey!, "Which planet is largest?", {}, inWorkflow);
  const hit = await chat(s.gw, s.gw.testKey!, "Which planet is largest?", {}, inWorkflow);
  const failed = await chat(s.gw, s.gw.testKey!, "Fail, please.", {}, { ...inWorkflow, model: "gw-test:upstream_error" });
  expect([miss.cache, hit.cache, failed.status]).toEqual(["miss", "exact", 502]);
  const outside = await chat(s.gw, s.gw.testKey!, "Which planet is smallest?");

  const w = await watchedPage(s.browser, s.gw.origin);
  const shown = async (r: { id: string }) => (await w.page.getByRole("link", { name: r.id, exact: true }).count()) > 0;
  try {
    await signIn(w.page, s.gw.origin, s.gw.adminToken);
    await w.page.getByRole("link", { name: "Requests", exact: true }).click();
    await w.page.getByRole("link", { name: outside.id, exact: true }).waitFor();
    await w.page.getByLabel("Workflow", { exact: true }).fill(workflow);
    await w.page.getByLabel("Cache", { exact: true }).selectOption("exact");
    await w.page.getByRole("button", { name: "Apply filters" }).click();
    await w.page.waitForURL((url) => url.searchParams.get("workflow_id") === workflow && url.searchParams.get("cache") === "exact");
    await w.page.getByRole("link", { name: miss.id, exact: true }).waitFor({ state: "detached" });
    await w.page.getByRole("link", { name: hit.id, exact: true }).waitFor();
    expect([await shown(failed), await shown(outside)]).toEqual([false, false]);

    const url = new URL(w.page.url());
    url.searchParams.delete("cache");
    url.searchParams.set("status", "502");
    await w.page.goto(url.toString());
    await w.page.getByRole("link", { name: failed.id, exact: true }).waitFor();
    expect([await shown(miss), await shown(hit), await shown(outside)]).toEqual([false, false, false]);
    expect(await w.page.getByLabel("Status", { exact: true }).inputValue()).toBe("502");

    // The export carries the same filter: exactly the one failed request.
    const [download] = await Promise.all([w.page.waitForEvent("download"), w.page.getByRole("link", { name: "Export NDJSON" }).click()]);
    const text = await new Response(Bun.file((await download.path())!)).text();
    const ids = text.trim().split("\n").map((line) => (JSON.parse(line) as { request_id: string }).request_id);
    expect(ids).toEqual([failed.id]);
    expect(w.problems).toEqual([]);
    expect(w.foreign).toEqual([]);
  } finally {
    await w.context.close();
  }
}, TEST_MS * 2);

test("the detail page shows the waterfall's span names and the selected model, and copies the trace JSON", async () => {
  const r = await chat(s.gw, s.gw.testKey!, "Explain what a load balancer does.");
  expect(r.model).toBeTruthy();
  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    // Tall enough that the virtualised waterfall draws all of this short trace's rows.
    await w.page.setViewportSize({ width: 1280, height: 2000 });
    await signIn(w.page, s.gw.origin, s.gw.adminToken);
    await w.page.getByRole("link", { name: "Requests", exact: true }).click();
    await w.page.getByRole("link", { name: r.id, exact: true }).click();
    await w.page.getByRole("heading", { level: 1, name: requestH1(r.id) }).waitFor();
    for (const span of ["authentication", "guard", "analysis", "cache", "routing", "llm"]) {
      await w.page.getByText(span, { exact: true }).first().waitFor();
    }
    await w.page.getByText("Selected model").first().waitFor();
    await w.page.getByText(r.model!, { exact: true }).first().waitFor();
    await w.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: s.gw.origin });
    await w.page.getByRole("button", { name: "Copy trace JSON" }).click();
    await w.page.getByRole("status").filter({ hasText: "Trace JSON copied" }).waitFor();
    const copied = JSON.parse(String(await w.page.evaluate("navigator.clipboard.readText()"))) as { request_id: string; trace: { spans: unknown[] } };
    expect(copied.request_id).toBe(r.id);
    expect(copied.trace.spans.length).toBeGreaterThanOrEqual(6);
    await w.page.getByRole("link", { name: "All requests of this trace" }).click();
    await w.page.waitForURL((url) => url.pathname === "/requests" && url.searchParams.has("trace_id"));
    await w.page.getByRole("link", { name: r.id, exact: true }).waitFor();
    await w.page.waitForLoadState("networkidle");
    expect(w.problems).toEqual([]);
    expect(w.foreign).toEqual([]);
  } finally {
    await w.context.close();
  }
}, TEST_MS);

test("a fallback's detail has one llm row per attempt, the failed one with its error code", async () => {
  const r = await chat(s.gw, s.gw.testKey!, "Fall back, please.", {}, { model: "gw-test:fallback" });
  expect(r.status).toBe(200);
  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await w.page.setViewportSize({ width: 1280, height: 2000 });
    await signIn(w.page, s.gw.origin, s.gw.adminToken);
    await w.page.goto(`${s.gw.origin}/requests/${r.id}`);
    await w.page.getByText(/attempt 1/).first().waitFor();
    expect(await w.page.getByText(/^llm$/).count()).toBe(2);
    await w.page.getByText("provider_unavailable", { exact: true }).first().waitFor();
    await w.page.getByText(`${r.model!}, attempt 1`).first().waitFor();
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, TEST_MS);

/** Replaces a logged request's stored trace by one with `n` more spans, written as the log writer would. */
async function growTrace(requestId: string, n: number): Promise<void> {
  const db = new Database(join(s.gw.dir, "data", "gw.sqlite"));
  try {
    db.run("PRAGMA busy_timeout = 5000");
    const read = db.query<{ data: string; project_id: string }, [string]>("SELECT data, project_id FROM traces WHERE request_id = ?");
    // The log writer stores rows off the request path; the row appears within moments.
    await waitFor(() => read.get(requestId) !== null, { timeoutMs: 30_000, what: `the trace of ${requestId}` });
    const trace = decodeTrace(JSON.parse(read.get(requestId)!.data) as JsonObject)!;
    const spans = trace.spans;
    if (!Array.isArray(spans)) throw new Error(`no spans in the trace of ${requestId}`);
    for (let i = 0; i < n; i++) spans.push([`step-${i}`, 20 + i * 0.01, 0.5, null]);
    db.query("UPDATE traces SET data = ? WHERE request_id = ?").run(JSON.stringify(encodeTrace(trace)), requestId);
  } finally {
    db.close();
  }
}

test("a 5,000-span trace renders its first rows and the page stays responsive", async () => {
  const r = await chat(s.gw, s.gw.testKey!, "A request whose trace grows to five thousand spans.");
  await growTrace(r.id, 5000);
  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(w.page, s.gw.origin, s.gw.adminToken);
    const started = performance.now();
    // With ?project= already in the URL the shell has no reason to re-render the page.
    const project = s.gw.output().match(/prj_[0-9a-z]+/)![0];
    await w.page.goto(`${s.gw.origin}/requests/${r.id}?project=${project}`);
    await w.page.getByRole("heading", { level: 1, name: requestH1(r.id) }).waitFor({ timeout: 30_000 });
    await w.page.getByText("step-0", { exact: true }).first().waitFor({ timeout: 30_000 });
    // A frozen main thread cannot answer; a virtualised list answers at once.
    const ping = performance.now();
    expect(await w.page.evaluate("document.querySelectorAll('h1').length")).toBe(1);
    expect(performance.now() - ping).toBeLessThan(5_000);
    // Virtualised: far fewer rows drawn than spans; scrolling the list's own scroller to its end draws the last.
    const rows = w.page.getByText(/^step-\d+$/);
    // A re-render (the URL gaining ?project=) may redraw the list: wait for rows rather than count once.
    await waitFor(async () => (await rows.count()) > 0, { timeoutMs: 30_000, what: "drawn step rows" });
    expect(await rows.count()).toBeLessThan(1000);
    // Scrolled again on each try: a re-render may put the scroller back to the top.
    const last = w.page.getByText("step-4999", { exact: true });
    await waitFor(async () => {
      await rows.first().evaluate((el) => {
        for (let e = el.parentElement; e; e = e.parentElement) {
          if (e.scrollHeight > e.clientHeight + 100) return void (e.scrollTop = e.scrollHeight);
        }
        el.ownerDocument.defaultView?.scrollTo(0, el.ownerDocument.body.scrollHeight);
      }, undefined, { timeout: 5_000 }).catch(() => undefined);
      return (await last.count()) > 0;
    }, { timeoutMs: 30_000, what: "the last span drawn once scrolled to the end" });
    expect(performance.now() - started).toBeLessThan(60_000);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, TEST_MS);
