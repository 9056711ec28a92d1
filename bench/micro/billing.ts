// mitata: what billing adds to one request (docs/billing.md "Cost on the request path"). A prepaid
// project: reserve + settle on its in-memory account, with the ledger rows (hold, charge, open-hold
// index) written in batches as the writer does, amortized per request; the same with one
// synchronous autocommit write per entry, the alternative the batching avoids; a project with
// nothing to check (one queued charge row); the per-request terms lookup; and a whole chat request
// in process (app.handle, fetch answering from memory as in request-path.ts), postpaid without
// terms vs prepaid, request log off, so the difference is billing's.
import { bench, do_not_optimize, group } from "mitata";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject } from "../../src/admin/projects.ts";
import { createApp } from "../../src/http/app.ts";
import { issueKey } from "../../src/auth/api-keys.ts";
import type { Terms } from "../../src/billing/account.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { Billing } from "../../src/billing/billing.ts";
import { termsOf } from "../../src/billing/terms.ts";
import { openDatabase } from "../../src/store/db.ts";
import { ledgerRepo } from "../../src/store/repos/ledger.ts";
import type { Project } from "../../src/store/repos/projects.ts";
import { answerEveryFetch, runMicro } from "./harness.ts";

const dataDir = mkdtempSync(join(tmpdir(), "gw-micro-billing-"));
try {
  const db = openDatabase(dataDir);
  const repo = ledgerRepo(db);
  const billing = new Billing(repo, (err) => console.error(err));
  const terms: Terms = { credit: "prepaid", creditLimit: 0, budgets: { daily: 1e15, monthly: 1e15 }, action: "block", monthlyRequests: null };
  billing.credit("prj_bench", 1_000_000, "bench");
  const settlement = (requestId: string) => ({ requestId, model: "openai/gpt-4o-mini", charge: 495_000, cost: 450_000, inputTokens: 1_000, outputTokens: 500, byok: false });
  // A batch per event-loop turn under load: ~64 requests' rows per transaction.
  const BATCH = 64;
  let n = 0;

  group("billing per request", () => {
    bench("prepaid: reserve + settle, rows batched (64 requests per transaction)", () => {
      const id = `req_${n++}`;
      const r = billing.reserve("prj_bench", id, terms, 600_000);
      if (r.ok) billing.settle("prj_bench", r.hold, settlement(id));
      if (n % BATCH === 0) billing.writer.flush();
    });

    bench("prepaid: reserve + settle, each row written synchronously (autocommit)", () => {
      const id = `req_${n++}`;
      const r = billing.reserve("prj_bench", id, terms, 600_000);
      billing.writer.flush();
      if (r.ok) billing.settle("prj_bench", r.hold, settlement(id));
      billing.writer.flush();
    });

    bench("no terms (postpaid, no limit): one charge row, batched", () => {
      billing.settle("prj_free", undefined, settlement(`req_${n++}`));
      if (n % BATCH === 0) billing.writer.flush();
    });

    const project: Project = { id: "prj_x", name: "x", plan: "pro", billingMode: "prepaid", balance: 0, creditLimit: null, policy: {}, createdAt: 0 };
    bench("termsOf (once per authenticated key, with its rules)", () => do_not_optimize(termsOf(project)));
  });

  answerEveryFetch();
  const config = loadConfig({ port: "0", data: join(dataDir, "app") }, { OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
  const deps = buildDeps(config, { logger: createLogger("silent") });
  deps.logWriter.enqueue = () => {};
  const app = createApp(deps);
  const body = JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "Summarise the note. ".repeat(40) }], max_tokens: 64 });
  const requestOf = (billing?: { mode: "prepaid" }) => {
    const id = createProject(deps.repos.projects, { name: "micro", billing }).id;
    if (billing) deps.billing.credit(id, 1_000_000, "bench");
    const headers = { authorization: `Bearer ${issueKey(deps.repos.apiKeys, { projectId: id, mode: "live" }).secret}`, "content-type": "application/json", "x-gw-cache": "off" };
    return async () => {
      const res = await app.handle(new Request("http://localhost/v1/chat/completions", { method: "POST", headers, body }));
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      do_not_optimize(await res.text());
    };
  };
  group("whole chat request in process, request log off", () => {
    bench("postpaid, no limit or budgets (no reserve stage)", requestOf());
    bench("prepaid (reserve, settle, ledger rows)", requestOf({ mode: "prepaid" }));
  });

  await runMicro();
  await deps.billing.drain();
  deps.billing.stop();
  billing.stop();
  db.close();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
