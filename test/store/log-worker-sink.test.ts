// The request log is written by a worker thread with its own SQLite connection; what it commits
// is visible to the main connection, and a closed sink fails its batches so they are retried.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DB_FILE, openDatabase } from "../../src/store/db.ts";
import { workerLogSink } from "../../src/store/log-worker-sink.ts";
import { LogWriter } from "../../src/store/log-writer.ts";
import { requestsRepo, type RequestRecord } from "../../src/store/repos/requests.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

let n = 0;
const record = (projectId = "prj_a"): RequestRecord => ({
  id: `req_${String(++n).padStart(22, "0")}`, projectId, keyId: "key_1", traceId: `trc_${n}`, createdAt: Date.now(),
  endpoint: "chat.completions", requestedModel: "gw-auto", selectedModel: "openai/gpt-4o-mini", provider: "openai",
  task: "chat", taskSubtype: "conversation", inputTokens: 10, outputTokens: 5, cost: 0.000123, saved: 0.0001,
  cache: null, status: 200, errorCode: null, errorMessage: null, errorCategory: null, latencyMs: 3, ttftMs: null,
  overheadMs: 0.05, fallbacks: 0, workflowId: "wf", step: null, tags: ["a"], stream: false, test: false,
  trace: { spans: [{ name: "request" }], versions: { gateway: "x" } },
});

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "gw-worker-"));
  dirs.push(dir);
  const db = openDatabase(dir);
  const errors: unknown[] = [];
  const repo = requestsRepo(db);
  const sink = workerLogSink(join(dir, DB_FILE), (err) => errors.push(err), repo);
  return { dir, db, repo, sink, errors };
}

describe("request log worker (issue 2 item 10: writes off the response path)", () => {
  test("batches written by the worker are readable, with their traces, from the main connection", async () => {
    const { db, repo, sink } = setup();
    const writer = new LogWriter(sink, { batchSize: 50, intervalMs: 5 });
    const records = Array.from({ length: 120 }, () => record());
    for (const r of records) writer.enqueue(r);
    await writer.drain();
    expect(writer.totalWritten).toBe(120);
    const { rows } = repo.list("prj_a", { limit: 100 });
    expect(rows).toHaveLength(100);
    const last = records.at(-1)!;
    const detail = repo.get("prj_a", last.id);
    expect(detail?.cost).toBe(0.000123);
    expect(detail?.tags).toEqual(["a"]);
    expect(detail?.trace).toEqual(last.trace);
    expect(repo.get("prj_other", last.id)).toBeNull();
    await sink.close();
    db.close();
  });

  test("rows written by the worker survive closing and reopening the database", async () => {
    const { dir, db, sink } = setup();
    const writer = new LogWriter(sink);
    const r = record("prj_b");
    writer.enqueue(r);
    await writer.drain();
    await sink.close();
    db.close();
    const reopened = openDatabase(dir);
    expect(requestsRepo(reopened).get("prj_b", r.id)?.id).toBe(r.id);
    reopened.close();
  });

  test("a row that breaks a constraint is rejected loudly while the rest of its batch is written", async () => {
    const { db, repo, sink, errors } = setup();
    const writer = new LogWriter(sink, { batchSize: 100, intervalMs: 5 });
    const good = [record(), record()];
    // status is NOT NULL: this row can never be written, and must not stall the log behind it.
    const bad = { ...record(), status: null as unknown as number };
    writer.enqueue(good[0]!);
    writer.enqueue(bad);
    writer.enqueue(good[1]!);
    await writer.drain();
    expect(repo.get("prj_a", good[0]!.id)).not.toBeNull();
    expect(repo.get("prj_a", good[1]!.id)).not.toBeNull();
    expect(repo.get("prj_a", bad.id)).toBeNull();
    expect(String(errors[0])).toContain(bad.id);
    await sink.close();
    db.close();
  });

  test("a worker that cannot start is given up on, and the log is written on the request thread", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gw-worker-"));
    dirs.push(dir);
    const db = openDatabase(dir);
    const repo = requestsRepo(db);
    const errors: unknown[] = [];
    const sink = workerLogSink(join(dir, DB_FILE), (err) => errors.push(err), repo, "file:///nonexistent/log-worker.ts");
    const writer = new LogWriter(sink, { intervalMs: 2 });
    const r = record("prj_f");
    writer.enqueue(r);
    await writer.drain();
    expect(repo.get("prj_f", r.id)?.id).toBe(r.id);
    expect(errors.map(String).some((e) => e.includes("writing the request log on the request thread"))).toBe(true);
    await sink.close();
    db.close();
  });
});
