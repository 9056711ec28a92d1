// The dashboard's filtered request-log pages at the store (docs/dashboard.md "Request log"): the
// driving index, the bounded scan window and its cursor, the tags table kept by triggers.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requestIdAt } from "../../src/lib/ids.ts";
import { parseLogFilters } from "../../src/schema/dashboard-requests.ts";
import { openDatabase } from "../../src/store/db.ts";
import { COLUMNS, prepareRow, type SqlValue } from "../../src/store/log-batch-codec.ts";
import { MIGRATIONS } from "../../src/store/migrate.ts";
import { planFilteredPage } from "../../src/store/repos/request-filters.ts";
import { requestsRepo, type RequestRecord } from "../../src/store/repos/requests.ts";

const dir = mkdtempSync(join(tmpdir(), "gw-filters-"));
const db = openDatabase(dir);
const repo = requestsRepo(db);
afterAll(() => (db.close(), rmSync(dir, { recursive: true, force: true })));

const T0 = Date.UTC(2026, 9, 1);
function record(i: number, over: Partial<RequestRecord> = {}): RequestRecord {
  const createdAt = T0 + i * 60_000;
  return {
    id: `${requestIdAt(createdAt)}0000aaaa${String(i).padStart(4, "0")}`, projectId: "prj_a", keyId: null, traceId: `trc_${i}`, createdAt,
    endpoint: "chat.completions", requestedModel: "gw-auto", selectedModel: "openai/gpt-4o-mini", provider: "openai", task: "chat",
    taskSubtype: null, inputTokens: 1, outputTokens: 1, cost: 0, saved: 0, cache: null, status: 200, errorCode: null, errorMessage: null,
    errorCategory: null, latencyMs: 1, ttftMs: null, overheadMs: null, fallbacks: 0, workflowId: null, step: null, tags: [], stream: false,
    test: false, trace: null, ...over,
  };
}

/** Every page of a filter, following next_cursor; ids in the order served. */
function allIds(projectId: string, query: Record<string, string>, window?: number): { ids: string[]; calls: number } {
  const ids: string[] = [];
  let after: string | undefined;
  for (let calls = 1; ; calls++) {
    const f = parseLogFilters({ ...query, ...(after ? { after } : {}) });
    const page = repo.page(projectId, f, window);
    ids.push(...page.rows.map((r) => r.id));
    if (!page.hasMore) return { ids, calls };
    expect(page.nextCursor).not.toBeNull();
    after = page.nextCursor!;
  }
}

describe("request_tags", () => {
  test("rows' tags are written with them, duplicates once, and deleted with them by retention", () => {
    const rows = [record(1, { tags: ["a", "b", "a"] }), record(2, { tags: [] }), record(3, { tags: ["b"] })].map((r) => ({ ...r, projectId: "prj_t" }));
    repo.insertPrepared(rows.map(prepareRow));
    const tags = () => db.query<{ tag: string; request_id: string }, []>("SELECT tag, request_id FROM request_tags WHERE project_id = 'prj_t' ORDER BY tag, request_id").all();
    expect(tags()).toEqual([{ tag: "a", request_id: rows[0]!.id }, { tag: "b", request_id: rows[0]!.id }, { tag: "b", request_id: rows[2]!.id }]);
    // A retried batch (duplicate ids) adds nothing.
    repo.insertPrepared(rows.map(prepareRow));
    expect(tags()).toHaveLength(3);
    repo.prune("prj_t", rows[2]!.id, 100);
    expect(tags()).toEqual([{ tag: "b", request_id: rows[2]!.id }]);
  });
});

describe("filtered pages", () => {
  const rows = Array.from({ length: 400 }, (_, i) => record(i, {
    selectedModel: i % 10 === 0 ? "anthropic/claude" : "openai/gpt-4o-mini", provider: i % 10 === 0 ? "anthropic" : "openai",
    status: i % 25 === 0 ? 502 : 200, errorCategory: i % 25 === 0 ? "UPSTREAM_ERROR" : null, cache: i % 7 === 0 ? "exact" : null,
    tags: i % 3 === 0 ? ["batch"] : i === 5 ? ["rare"] : [], task: i % 4 === 0 ? "coding" : "chat", test: i % 11 === 0,
    workflowId: i % 50 === 1 ? "wf_1" : null,
  }));
  repo.insertPrepared(rows.map(prepareRow));
  repo.insertPrepared([record(1000, { projectId: "prj_b", tags: ["batch"] })].map(prepareRow));
  const newestFirst = (keep: (r: RequestRecord) => boolean) => rows.filter(keep).map((r) => r.id).reverse();

  test("the most selective filter drives; the others are tested on its rows", () => {
    const driver = (q: Record<string, string>) => planFilteredPage("prj_a", parseLogFilters(q)).driver;
    expect(driver({})).toBe("primary key");
    expect(driver({ status: "200", model: "m" })).toBe("requests_project_model");
    expect(driver({ status: "502", model: "m" })).toBe("requests_project_status");
    expect(driver({ tag: "x", model: "m" })).toBe("tags");
    expect(driver({ trace_id: "t", tag: "x" })).toBe("requests_project_trace");
    expect(driver({ cache: "miss", test: "false" })).toBe("primary key");
    expect(planFilteredPage("prj_a", parseLogFilters({ model: "m" })).boundarySql).toBeNull();
  });

  test("a window smaller than the gap between matches answers fewer rows with a cursor that continues the scan", () => {
    // Every 30th row matches; windows of 30 tagged rows (or 25 rows) hold few matches or none.
    const { ids, calls } = allIds("prj_a", { tag: "batch", model: "anthropic/claude", limit: "5" }, 30);
    expect(ids).toEqual(newestFirst((r) => r.tags.includes("batch") && r.selectedModel === "anthropic/claude"));
    expect(calls).toBeGreaterThan(3);
    const sparse = allIds("prj_a", { status: "200", cache: "miss", test: "true", model: "anthropic/claude", limit: "3" }, 25);
    expect(sparse.ids).toEqual(newestFirst((r) => r.status === 200 && r.cache === null && r.test && r.selectedModel === "anthropic/claude"));
  });

  test("pages never overlap or skip, with and without filters tested on rows", () => {
    for (const [query, keep] of [
      [{}, () => true],
      [{ tag: "batch" }, (r: RequestRecord) => r.tags.includes("batch")],
      [{ task: "coding", cache: "miss" }, (r: RequestRecord) => r.task === "coding" && r.cache === null],
      [{ test: "false", provider: "openai", error_category: "UPSTREAM_ERROR" }, (r: RequestRecord) => !r.test && r.provider === "openai" && r.errorCategory === "UPSTREAM_ERROR"],
    ] as const) {
      expect(allIds("prj_a", { ...query, limit: "7" }, 40).ids).toEqual(newestFirst(keep));
    }
  });

  test("from and to are an id range, to inclusive", () => {
    const from = new Date(T0 + 100 * 60_000).toISOString();
    const to = String(T0 + 120 * 60_000);
    expect(allIds("prj_a", { from, to, limit: "100" }).ids).toEqual(newestFirst((r) => r.createdAt >= T0 + 100 * 60_000 && r.createdAt <= T0 + 120 * 60_000));
    expect(allIds("prj_a", { from, to, tag: "batch" }).ids).toEqual(newestFirst((r) => r.tags.includes("batch") && r.createdAt >= T0 + 100 * 60_000 && r.createdAt <= T0 + 120 * 60_000));
  });

  test("another project's rows never appear", () => {
    expect(allIds("prj_a", { tag: "batch" }).ids).not.toContain(record(1000).id);
    expect(allIds("prj_b", { tag: "batch" }).ids).toEqual([record(1000).id]);
  });
});

describe("migration 009 on an existing log", () => {
  test("rows written before it get their tags in request_tags", () => {
    const old = new Database(":memory:", { strict: true });
    for (const m of MIGRATIONS.filter((m) => m.version < 9)) old.run(m.sql);
    const insert = old.query<unknown, SqlValue[]>(`INSERT INTO requests (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map(() => "?").join(", ")})`);
    const rows = [record(1, { tags: ["x", "y"] }), record(2), record(3, { tags: ["x", "x"] })];
    for (const r of rows) insert.run(...prepareRow(r).values);
    old.run(MIGRATIONS.find((m) => m.version === 9)!.sql);
    expect(old.query<{ tag: string; request_id: string }, []>("SELECT tag, request_id FROM request_tags ORDER BY tag, request_id").all()).toEqual([
      { tag: "x", request_id: rows[0]!.id }, { tag: "x", request_id: rows[2]!.id }, { tag: "y", request_id: rows[0]!.id },
    ]);
    old.close();
  });
});
