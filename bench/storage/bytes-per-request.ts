// Bytes the request log writes per request (docs/observability.md "Trace storage"): 300 test-key
// gw-auto requests and 100 live explicit-model requests through a real gw and a scripted upstream,
// then the pages of the log's tables (dbstat) per request. Point it at another checkout to compare:
// `bun run bench/storage/bytes-per-request.ts [repo root] [GW_TEST_TRACES_PER_MIN]`.
import type { Database } from "bun:sqlite";
import { resolve } from "node:path";

const root = resolve(process.argv[2] ?? `${import.meta.dir}/../..`);
const perMinute = process.argv[3] ?? "60";
const { startBillingGw, billedProject, chat, user } = await import(`${root}/test/flows/billing/billing-helpers.ts`);
const { post } = await import(`${root}/test/helpers/test-gw.ts`);
const { gw, stop } = await startBillingGw({}, { GW_TEST_TRACES_PER_MIN: perMinute, GW_STORAGE_RESERVE_MB: "1" });
const paid = await billedProject(gw);
const TEST = 300;
const LIVE = 100;
const prompts = ["Write a python function that parses dates", "Summarize the history of Rome", "Translate hello to French", "What is 17 * 23?"];
for (let i = 0; i < TEST; i++) {
  const res = await post(`${gw.url}/chat/completions`, gw.testKey, { model: "gw-auto", messages: [{ role: "user", content: `${prompts[i % 4]} #${i}` }] }, { "x-gw-cache": "off" });
  await res.text();
}
for (let i = 0; i < LIVE; i++) await (await chat(gw, paid.key, { messages: user(`${prompts[i % 4]} #${i}`), max_tokens: 50 })).text();
await gw.drain();
const db = gw.deps.db as Database;
db.run("PRAGMA wal_checkpoint(TRUNCATE)");
const pages = db.query<{ name: string; bytes: number }, []>("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name").all()
  .filter((p) => /^(requests|traces|sqlite_autoindex_traces|metrics|trace_usage)/.test(p.name));
const total = pages.reduce((s, p) => s + p.bytes, 0);
const traces = db.query<{ a: number; n: number }, []>("SELECT avg(length(data)) AS a, count(*) AS n FROM traces").get()!;
console.log(JSON.stringify({
  root, test_traces_per_min: perMinute, requests: TEST + LIVE, traces: traces.n, trace_avg_chars: Math.round(traces.a),
  log_bytes_per_request: Math.round(total / (TEST + LIVE)), tables: Object.fromEntries(pages.map((p) => [p.name, p.bytes])),
}));
await stop();
