// mitata: the record stage alone (the log row, the trace, their encoding and the request line) on
// the final state of real requests through app.handle: a pinned model, gw-auto (37 candidates, most
// excluded) and a failure (unknown model); then the row encoding alone and a request's spans.
import { bench, do_not_optimize } from "mitata";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject } from "../../src/admin/projects.ts";
import { issueKey } from "../../src/auth/api-keys.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { createApp } from "../../src/http/app.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { SpanRecorder } from "../../src/observability/trace.ts";
import { record } from "../../src/pipeline/stages/record.ts";
import type { RequestState } from "../../src/pipeline/state.ts";
import { encodeLogRow } from "../../src/store/log-batch-codec.ts";
import type { LedgerEntry } from "../../src/store/repos/ledger.ts";
import type { RequestRecord } from "../../src/store/repos/requests.ts";
import { answerEveryFetch, runMicro } from "./harness.ts";

answerEveryFetch();

const prompt = "Summarise the following note for a colleague. ".repeat(20).slice(0, 900);
// Info lines are built and written, as in production, to a sink that drops them.
const logger = createLogger("info", { write: () => {} });
const dataDir = mkdtempSync(join(tmpdir(), "gw-micro-record-"));
const config = loadConfig({ port: "0", data: dataDir }, { OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
const deps = buildDeps(config, { logger });
const projectId = createProject(deps.repos.projects, { name: "micro" }).id;
const key = issueKey(deps.repos.apiKeys, { projectId, mode: "live" }).secret;
const app = createApp(deps);

// The request's final state (seen as it is registered in flight), its row and its charge.
let state: RequestState | null = null;
let row: RequestRecord | null = null;
let ledger: LedgerEntry[] | undefined;
const track = deps.inFlight.add.bind(deps.inFlight);
deps.inFlight.add = (s) => ((state = s), track(s));
const enqueue = deps.logWriter.enqueue.bind(deps.logWriter);
deps.logWriter.enqueue = (r, charge) => ((row = r), (ledger = charge?.entries), enqueue(r, charge));

async function capture(model: string): Promise<{ state: RequestState; row: RequestRecord; ledger?: LedgerEntry[] }> {
  const body = JSON.stringify({ model, messages: [{ role: "user", content: prompt }], max_tokens: 64 });
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json", "x-gw-cache": "off" };
  await (await app.handle(new Request("http://localhost/v1/chat/completions", { method: "POST", headers, body }))).text();
  if (!state || !row) throw new Error(`no request recorded for ${model}`);
  return { state, row, ledger };
}

const cases = [
  ["pinned model", await capture("openai/gpt-4o-mini")],
  ["gw-auto", await capture("gw-auto")],
  ["unknown model (404)", await capture("nope/x")],
] as const;
await deps.logWriter.drain();
// From here record() encodes its row as enqueue would, and nothing is written or listened to.
deps.requestListeners.length = 0;

try {
  for (const [name, c] of cases) {
    bench(`record(), ${name}`, () => {
      deps.logWriter.enqueue = (r) => do_not_optimize(encodeLogRow(r, c.ledger));
      record(deps, c.state);
    });
  }
  for (const [name, c] of cases) bench(`encodeLogRow, ${name}`, () => do_not_optimize(encodeLogRow(c.row, c.ledger)));
  bench("spans: 8 stages timed and added, then withRoot", () => {
    const spans = new SpanRecorder(performance.now());
    for (const name of ["parse", "guard", "analysis", "cache", "optimization", "routing", "call", "meter"]) {
      const start = spans.now();
      spans.add(name, start, spans.now(), null);
    }
    do_not_optimize(spans.withRoot(spans.now(), null));
  });
  await runMicro();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
