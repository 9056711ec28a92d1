// The floor for a gateway that meters durably, as issue 19 asks of gw: bench/metering-floor.ts plus
// gw's own log writer and log worker, so every answered request hands one request-log row, a trace
// of the size gw writes (rows.ts's, cut to gw's size) and a ledger charge to the worker, which
// commits them in one SQLite transaction. No analysis, routing, guard, limits, cache or billing:
// what this serves is the most any gateway doing that durable work could serve on this host.
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mkdtempSync } from "node:fs";
import { openDatabase, DB_FILE } from "../src/store/db.ts";
import { requestsRepo } from "../src/store/repos/requests.ts";
import { ledgerRepo } from "../src/store/repos/ledger.ts";
import { LogWriter } from "../src/store/log-writer.ts";
import { workerLogSink } from "../src/store/log-worker-sink.ts";
import { newRequestId } from "../src/lib/ids.ts";
import { generateRows } from "./observability/rows.ts";

const upstream = process.env.UPSTREAM_URL;
if (!upstream) throw new Error("UPSTREAM_URL is required (base URL including /v1)");
const target = `${upstream}/chat/completions`;
const PROJECT = "prj_durablefloor";
const dir = mkdtempSync(join(tmpdir(), "gw-durable-floor-"));
const db = openDatabase(dir);
db.run("INSERT INTO projects (id, name, plan, billing_mode, created_at) VALUES (?, 'floor', 'free', 'postpaid', ?)", [PROJECT, Date.now()]);
const repo = requestsRepo(db);
const ledger = ledgerRepo(db);
const sink = workerLogSink(join(dir, DB_FILE), (err) => console.error(err), repo, undefined, {
  cache: () => {}, ledger: (entries) => ledger.appendMany(entries),
});
const writer = new LogWriter(sink);
// Successful rows only, their traces cut to one candidate: about 720-760 characters stored, the size
// of gw's own traces for the throughput scenario's request (scenarios (a) and (b): 730-750).
const templates = [...generateRows(400, Date.now() - 60_000, Date.now(), [PROJECT], 7)]
  .filter((r) => r.status === 200)
  .slice(0, 64)
  .map((r) => ({ ...r, trace: { ...r.trace, candidates: (r.trace?.candidates as unknown[] | undefined)?.slice(0, 1) ?? [] } }));
let n = 0;
const keys = new Map([["Bearer floor", PROJECT]]);

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(process.env.PORT ?? 0),
  async fetch(req) {
    if (req.method !== "POST" || new URL(req.url).pathname !== "/v1/chat/completions") return new Response("not found", { status: 404 });
    const project = keys.get(req.headers.get("authorization") ?? "") ?? PROJECT;
    const text = await req.text();
    const body = JSON.parse(text) as { model?: string };
    const res = await fetch(target, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer upstream" }, body: text });
    const answer = await res.text();
    const usage = (JSON.parse(answer) as { usage?: { prompt_tokens?: number; completion_tokens?: number } }).usage;
    const t = templates[n++ % templates.length]!;
    const id = newRequestId();
    const record = { ...t, id, projectId: project, createdAt: Date.now(), selectedModel: body.model ?? t.selectedModel,
      inputTokens: usage?.prompt_tokens ?? 0, outputTokens: usage?.completion_tokens ?? 0 };
    const entries = [{ projectId: project, kind: "charge" as const, amount: 1000, requestId: id, model: record.selectedModel,
      inputTokens: record.inputTokens, outputTokens: record.outputTokens, cost: 1e-6, createdAt: record.createdAt }];
    writer.enqueue(record, { entries, committed() {}, notCarried() {} });
    return new Response(answer, { status: res.status, headers: { "content-type": "application/json" } });
  },
});
console.log(`DURABLE_FLOOR http://127.0.0.1:${server.port}/v1`);
process.on("SIGTERM", () => {
  server.stop(true);
  void writer.drain().finally(() => sink.close().then(() => process.exit(0)));
});
