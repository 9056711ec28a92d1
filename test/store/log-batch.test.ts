// How request-log batches cross to the log worker and land in SQLite (docs/api.md "Request log",
// "Request detail"): the codec keeps every value and the trace text exactly, and multi-row
// inserts write every row of a batch whatever its size, traces or not, duplicates skipped.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newRequestId } from "../../src/lib/ids.ts";
import { openDatabase } from "../../src/store/db.ts";
import { decodeLogBatch, encodeLogBatch, prepareRow } from "../../src/store/log-batch-codec.ts";
import { requestsRepo, type RequestRecord, type RequestsRepo } from "../../src/store/repos/requests.ts";

const PROJECT = "prj_logbatch";

function row(overrides: Partial<RequestRecord> = {}): RequestRecord {
  const id = newRequestId();
  return {
    id, projectId: PROJECT, keyId: "key_x", traceId: `trc_${id.slice(4)}`, createdAt: Date.now(), endpoint: "chat.completions",
    requestedModel: "gw-auto", selectedModel: "openai/gpt-4o-mini", provider: "openai", task: "chat", taskSubtype: null,
    inputTokens: 10, outputTokens: 20, cost: 0.00004095, saved: 0, cache: null, status: 200, errorCode: null, errorMessage: null,
    errorCategory: null, latencyMs: 5, ttftMs: 3, overheadMs: 1.25, fallbacks: 0, workflowId: null, step: null, tags: ["a", "b"],
    stream: true, test: false, trace: { spans: [["request", 0, 1.5, null]], reason: "line one\nline two \u2028 \"quoted\"" },
    ...overrides,
  };
}

describe("log batch codec (one string per batch, trace text kept as written)", () => {
  test("decode(encode(rows)) gives exactly the prepared rows, newlines in values included", () => {
    const rows = [row(), row({ trace: null, errorMessage: "multi\nline\r\nmessage", status: 502 }), row({ tags: [] })];
    expect(decodeLogBatch(encodeLogBatch(rows))).toEqual(rows.map(prepareRow));
  });

  test("an empty batch encodes to an empty string and decodes to no rows", () => {
    expect(encodeLogBatch([])).toBe("");
    expect(decodeLogBatch("")).toEqual([]);
  });
});

describe("multi-row inserts (groups of 16 plus a remainder)", () => {
  let dir: string;
  let db: Database;
  let repo: RequestsRepo;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "gw-logbatch-"));
    db = openDatabase(dir);
    repo = requestsRepo(db);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const count = (table: string): number => db.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM ${table}`).get()!.n;

  for (const size of [1, 15, 16, 17, 37, 256]) {
    test(`a batch of ${size} writes every row and trace, readable as written`, () => {
      const rows = Array.from({ length: size }, (_, i) => row({ latencyMs: i, trace: i % 5 === 3 ? null : { n: i } }));
      expect(repo.insertPrepared(decodeLogBatch(encodeLogBatch(rows)))).toEqual([]);
      expect(count("requests")).toBe(size);
      expect(count("traces")).toBe(rows.filter((r) => r.trace !== null).length);
      for (const r of rows) expect(repo.get(PROJECT, r.id)).toEqual(r);
    });
  }

  test("a batch written twice, and a duplicate inside one group, are stored once", () => {
    const rows = Array.from({ length: 20 }, () => row());
    const prepared = decodeLogBatch(encodeLogBatch([...rows.slice(0, 8), rows[0]!, ...rows.slice(8)]));
    expect(repo.insertPrepared(prepared)).toEqual([]);
    expect(repo.insertPrepared(prepared)).toEqual([]);
    expect(count("requests")).toBe(20);
    expect(count("traces")).toBe(20);
  });

  test("a row that breaks a constraint inside a full group is the only one rejected", () => {
    const rows = Array.from({ length: 32 }, () => row());
    const prepared = rows.map(prepareRow);
    prepared[5]!.values[4] = null; // created_at is NOT NULL
    expect(repo.insertPrepared(prepared)).toEqual([rows[5]!.id]);
    expect(count("requests")).toBe(31);
    expect(repo.get(PROJECT, rows[5]!.id)).toBeNull();
    expect(repo.get(PROJECT, rows[6]!.id)).toEqual(rows[6]!);
  });
});
