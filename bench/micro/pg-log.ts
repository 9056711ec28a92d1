// `bun bench/micro/pg-log.ts`: one request-log batch on PostgreSQL (docs/scale-out.md "Request log
// and metrics"), real server on loopback: 1-row and 16-row batches written one after the other, and
// a request's wait for its row's group commit through the LogWriter, alone and four at a time. Knob: BENCH_ITERATIONS (400).
import { newRequestId, newTraceId } from "../../src/lib/ids.ts";
import { prepareRow } from "../../src/store/log-batch-codec.ts";
import { LogWriter } from "../../src/store/log-writer.ts";
import { openPostgres } from "../../src/store/postgres/connect.ts";
import { postgresLogSink } from "../../src/store/postgres/log-sink.ts";
import { migratePostgres } from "../../src/store/postgres/migrate.ts";
import { postgresLogStore } from "../../src/store/postgres/request-log.ts";
import type { RequestRecord } from "../../src/store/request-record.ts";
import { startPostgres } from "../../test/helpers/services.ts";
import { envNumber, fmt, percentiles } from "../lib/stats.ts";

const ITERATIONS = envNumber("BENCH_ITERATIONS", 400);
const PROJECTS = ["prj_bench_a", "prj_bench_b", "prj_bench_c"];

function record(i: number): RequestRecord {
  return {
    id: newRequestId(), projectId: PROJECTS[i % PROJECTS.length]!, keyId: "key_bench", traceId: newTraceId(), createdAt: Date.now(),
    endpoint: "chat.completions", requestedModel: "gw-auto", selectedModel: "openai/gpt-4o-mini", provider: "openai", task: "chat",
    taskSubtype: null, inputTokens: 225, outputTokens: 18, cost: 0.00004095, saved: 0, cache: null, status: 200, errorCode: null,
    errorMessage: null, errorCategory: null, latencyMs: 40 + (i % 50), ttftMs: 12, overheadMs: 1.25, fallbacks: 0, workflowId: null,
    step: null, tags: ["bench"], stream: false, test: false, trace: { spans: [["request", 0, 1.5, null]], reason: "bench" },
  };
}

async function measure(label: string, op: (i: number) => Promise<unknown>, iterations = ITERATIONS): Promise<void> {
  for (let i = 0; i < 30; i++) await op(i);
  const ms: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    await op(i);
    ms.push(performance.now() - t);
  }
  const p = percentiles(ms);
  console.log(`${label.padEnd(44)} p50 ${fmt(p.p50, 3)} ms  p95 ${fmt(p.p95, 3)} ms  p99 ${fmt(p.p99, 3)} ms`);
}

const service = await startPostgres();
const pg = openPostgres(service.url, { max: 10, timeoutMs: 20_000 });
try {
  await migratePostgres(pg.sql);
  const store = postgresLogStore(pg);
  store.setTraceBudget(1e12);
  let n = 0;
  await measure("writeBatch, 1 row", () => store.writeBatch([prepareRow(record(n++))]));
  await measure("writeBatch, 16 rows (3 projects)", () => store.writeBatch(Array.from({ length: 16 }, () => prepareRow(record(n++)))));
  await measure("writeBatch, 256 rows (3 projects)", () => store.writeBatch(Array.from({ length: 256 }, () => prepareRow(record(n++)))), Math.ceil(ITERATIONS / 10));
  await measure("writeBatch, 1 row then its retry (2 calls)", async () => {
    const rows = [prepareRow(record(n++))];
    await store.writeBatch(rows);
    return store.writeBatch(rows);
  });
  const writer = new LogWriter(postgresLogSink(store, () => undefined), { groupCommit: { ackWithinMs: 2_000 } });
  await measure("LogWriter group commit: enqueue to ack", async () => writer.enqueue(record(n++)));
  // Four requests at a time, each answered once its row is committed (bench/scale-out.ts's client).
  const waits: number[] = [];
  await Promise.all(Array.from({ length: 4 }, async () => {
    for (let i = 0; i < ITERATIONS; i++) {
      const t = performance.now();
      await writer.enqueue(record(n++));
      waits.push(performance.now() - t);
    }
  }));
  const p = percentiles(waits.slice(120));
  console.log(`${"LogWriter group commit, 4 at a time".padEnd(44)} p50 ${fmt(p.p50, 3)} ms  p95 ${fmt(p.p95, 3)} ms  p99 ${fmt(p.p99, 3)} ms`);
  await writer.drain();
} finally {
  await pg.close();
  await service.stop();
}
