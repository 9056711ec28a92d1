// The request log store's contract (src/store/log-store.ts), run against SQLite and PostgreSQL: a
// batch lands whole or not at all, a retried batch changes nothing, reads stay in their project.
import { describe, expect, test } from "bun:test";
import { percentile } from "../../../src/lib/histogram.ts";
import { requestIdAt } from "../../../src/lib/ids.ts";
import { COLUMNS, prepareRow } from "../../../src/store/log-batch-codec.ts";
import type { LogQuery, RequestLogStore } from "../../../src/store/log-store.ts";
import type { RequestRecord } from "../../../src/store/request-record.ts";

export interface LogHarness {
  store: RequestLogStore;
  /** Makes the insert of the row with this id fail with an error that is not a constraint (the
   * server failing mid-batch), until `heal`. */
  poison(id: string): Promise<void>;
  heal(): Promise<void>;
  /** Rows the project has, counted by the harness itself. */
  count(projectId: string): Promise<number>;
}

const DAY = 86_400_000;
export const T0 = Date.UTC(2026, 10, 26, 10, 0, 0);
let projects = 0;
let minted = 0;
export const project = (name: string): string => `prj_${name}_${process.pid}_${++projects}`;

export function record(projectId: string, createdAt: number, overrides: Partial<RequestRecord> = {}): RequestRecord {
  // Minted at createdAt (SQLite reads time ranges as id ranges), unique across the process.
  const id = `${requestIdAt(createdAt)}${(++minted).toString(32).padStart(12, "0")}`;
  return {
    id, projectId, keyId: "key_x", traceId: `trc_${id.slice(4)}`, createdAt, endpoint: "chat.completions",
    requestedModel: "gw-auto", selectedModel: "openai/gpt-4o-mini", provider: "openai", task: "chat", taskSubtype: null,
    inputTokens: 10, outputTokens: 20, cost: 0.00004095, saved: 0.000001, cache: null, status: 200, errorCode: null,
    errorMessage: null, errorCategory: null, latencyMs: 40, ttftMs: 12, overheadMs: 1.25, fallbacks: 0, workflowId: null,
    step: null, tags: ["a", "b"], stream: true, test: false, trace: { spans: [["request", 0, 1.5, null]], reason: "why \"this\"" },
    ...overrides,
  };
}

export function requestLogContract(name: string, make: () => Promise<LogHarness>): void {
  describe(`request log store contract (${name})`, () => {
    test("a batch of 1,000 rows lands whole or not at all; retried once healed, it lands whole", async () => {
      const h = await make();
      const p = project("whole");
      const records = Array.from({ length: 1_000 }, (_, i) => record(p, T0 + i * 10, { trace: i % 3 === 0 ? null : { n: i } }));
      const rows = records.map(prepareRow);
      await h.poison(records[999]!.id);
      await expect(h.store.writeBatch(rows)).rejects.toThrow();
      expect(await h.count(p)).toBe(0);
      expect(await h.store.get(p, records[0]!.id)).toBeNull();
      await h.heal();
      expect(await h.store.writeBatch(rows)).toEqual([]);
      expect(await h.count(p)).toBe(1_000);
      expect(await h.store.get(p, records[1]!.id)).toEqual(records[1]!);
      expect(await h.store.get(p, records[999]!.id)).toEqual(records[999]!);
    });

    test("a retried batch is a no-op, also when it comes back with new rows", async () => {
      const h = await make();
      const p = project("retry");
      const first = Array.from({ length: 40 }, (_, i) => record(p, T0 + i));
      await h.store.writeBatch(first.map(prepareRow));
      expect(await h.store.writeBatch(first.map(prepareRow))).toEqual([]);
      expect(await h.count(p)).toBe(40);
      const more = [...first, ...Array.from({ length: 7 }, (_, i) => record(p, T0 + 100 + i))];
      expect(await h.store.writeBatch(more.map(prepareRow))).toEqual([]);
      expect(await h.count(p)).toBe(47);
      const page = await h.store.list(p, { limit: 100 });
      expect(page.rows.map((r) => r.id)).toEqual(more.map((r) => r.id).reverse());
    });

    test("a row that breaks a constraint is reported and the rest of its batch is written", async () => {
      const h = await make();
      const p = project("reject");
      const good = [record(p, T0), record(p, T0 + 1)];
      const bad = prepareRow(record(p, T0 + 2));
      bad.values[COLUMNS.indexOf("status")] = null; // NOT NULL
      expect(await h.store.writeBatch([prepareRow(good[0]!), bad, prepareRow(good[1]!)])).toEqual([bad.id]);
      expect(await h.count(p)).toBe(2);
      // Two bad rows among 300: only they are left out.
      const many = Array.from({ length: 300 }, (_, i) => prepareRow(record(p, T0 + 10 + i)));
      for (const i of [17, 250]) many[i]!.values[COLUMNS.indexOf("status")] = null;
      expect(await h.store.writeBatch(many)).toEqual([many[17]!.id, many[250]!.id]);
      expect(await h.count(p)).toBe(300);
    });

    test("rows of two days: both stored, each day's read by time range", async () => {
      const h = await make();
      const p = project("days");
      const day1 = Array.from({ length: 5 }, (_, i) => record(p, T0 + i * 1000));
      const day2 = Array.from({ length: 3 }, (_, i) => record(p, T0 + DAY + i * 1000));
      await h.store.writeBatch([...day1, ...day2].map(prepareRow));
      const start = T0 - (T0 % DAY);
      const first = await h.store.list(p, { limit: 50, from: start, to: start + DAY - 1 });
      expect(first.rows.map((r) => r.id)).toEqual(day1.map((r) => r.id).reverse());
      const second = await h.store.list(p, { limit: 50, from: start + DAY });
      expect(second.rows.map((r) => r.id)).toEqual(day2.map((r) => r.id).reverse());
    });

    test("reads by project never see another project's rows; filters by model and status; pages by cursor", async () => {
      const h = await make();
      const a = project("a");
      const b = project("b");
      const rowsA = Array.from({ length: 6 }, (_, i) => record(a, T0 + i, i % 2 ? { selectedModel: "anthropic/claude-haiku", status: 502, errorCategory: "provider_error" } : {}));
      const rowsB = Array.from({ length: 4 }, (_, i) => record(b, T0 + i));
      await h.store.writeBatch([...rowsA, ...rowsB].map(prepareRow));
      expect(await h.store.get(b, rowsA[0]!.id)).toBeNull();
      expect(await h.store.get(a, rowsA[0]!.id)).toEqual(rowsA[0]!);
      const all = await h.store.list(b, { limit: 50 });
      expect(all.rows.every((r) => r.projectId === b)).toBe(true);
      expect(all.rows).toHaveLength(4);
      const byModel = await h.store.list(a, { limit: 50, model: "anthropic/claude-haiku" });
      expect(byModel.rows.map((r) => r.id)).toEqual([rowsA[5]!.id, rowsA[3]!.id, rowsA[1]!.id]);
      expect(byModel.rows[0]!.trace).toBeNull();
      const byStatus = await h.store.list(a, { limit: 50, status: 200 });
      expect(byStatus.rows.map((r) => r.id)).toEqual([rowsA[4]!.id, rowsA[2]!.id, rowsA[0]!.id]);
      expect((await h.store.list(b, { limit: 50, model: "anthropic/claude-haiku" })).rows).toEqual([]);
      const page1 = await h.store.list(a, { limit: 4 });
      expect(page1.hasMore).toBe(true);
      const page2 = await h.store.list(a, { limit: 4, after: page1.rows.at(-1)!.id });
      expect(page2).toEqual({ rows: [rowsA[1]!, rowsA[0]!].map((r) => ({ ...r, trace: null })), hasMore: false });
    });

    test("the dashboard's other filters: provider, cache, error category, tag, task, test", async () => {
      const h = await make();
      const p = project("filters");
      const rows = [
        record(p, T0, { provider: "anthropic", cache: "exact", tags: ["blue"] }),
        record(p, T0 + 1, { cache: "semantic", task: "coding", test: true }),
        record(p, T0 + 2, { status: 502, errorCode: "provider_error", errorCategory: "PROVIDER_ERROR", tags: ["blue", "red"] }),
        record(p, T0 + 3, { tags: [] }),
      ];
      await h.store.writeBatch(rows.map(prepareRow));
      const ids = async (q: Omit<LogQuery, "limit">) => (await h.store.list(p, { limit: 10, ...q })).rows.map((r) => rows.findIndex((x) => x.id === r.id));
      expect(await ids({ provider: "anthropic" })).toEqual([0]);
      expect(await ids({ cache: "exact" })).toEqual([0]);
      expect(await ids({ cache: "semantic" })).toEqual([1]);
      expect(await ids({ cache: "miss" })).toEqual([3, 2]);
      expect(await ids({ errorCategory: "PROVIDER_ERROR" })).toEqual([2]);
      expect(await ids({ tag: "blue" })).toEqual([2, 0]);
      expect(await ids({ tag: "red", cache: "miss" })).toEqual([2]);
      expect(await ids({ task: "coding" })).toEqual([1]);
      expect(await ids({ test: true })).toEqual([1]);
      expect(await ids({ test: false, from: T0 + 1, to: T0 + 2 })).toEqual([2]);
    });

    test("rollup totals count each row once, a retried batch included, and only the project's", async () => {
      const h = await make();
      const p = project("totals");
      const rows = Array.from({ length: 20 }, (_, i) => record(p, T0 + i * 7_000, {
        latencyMs: 30 + i, cost: 0.000002 * i, inputTokens: i, cache: i % 4 === 0 ? "exact" : null,
        ...(i % 5 === 0 ? { status: 502, errorCode: "provider_error", errorCategory: "PROVIDER_ERROR" } : {}),
      }));
      await h.store.writeBatch(rows.map(prepareRow));
      await h.store.writeBatch(rows.map(prepareRow));
      await h.store.writeBatch([record(project("other"), T0)].map(prepareRow));
      const start = T0 - (T0 % 60_000);
      const t = await h.store.totals(p, start, start + 5 * 60_000);
      expect(t.requests).toBe(20);
      expect(t.inputTokens).toBe(190);
      expect(t.cacheHits).toBe(5);
      expect(t.errors).toEqual({ PROVIDER_ERROR: 4 });
      expect(t.cost).toBeCloseTo(0.00038, 12);
      expect(percentile(t.latency, 50)).toBe(39);
      expect((await h.store.totals(p, start + 60_000, start + 2 * 60_000)).requests).toBe(9);
    });

    test("past a project's trace budget its rows are still written, without traces; other projects keep theirs", async () => {
      const h = await make();
      const p = project("budget");
      const other = project("budget_other");
      // Each trace is 46 ASCII characters stored: the third brings the project to 138 >= 100.
      const trace = { pad: "x".repeat(30) };
      const rows = Array.from({ length: 5 }, (_, i) => record(p, T0 + i, { trace }));
      expect(prepareRow(rows[0]!).trace).toHaveLength(46);
      h.store.setTraceBudget(100);
      try {
        await h.store.writeBatch([...rows.slice(0, 2), record(other, T0, { trace })].map(prepareRow));
        await h.store.writeBatch(rows.slice(2).map(prepareRow));
        await h.store.writeBatch([record(other, T0 + 1, { trace })].map(prepareRow));
        // PostgreSQL writes traces after their rows, under the budget of the moment.
        if (h.store.flushTraces) expect(await h.store.flushTraces(20_000)).toBe(true);
      } finally {
        h.store.setTraceBudget(0);
      }
      expect(await h.count(p)).toBe(5);
      const kept = await Promise.all(rows.map(async (r) => (await h.store.get(p, r.id))?.trace !== null));
      expect(kept).toEqual([true, true, true, false, false]);
      expect((await h.store.list(other, { limit: 5 })).rows).toHaveLength(2);
      for (const r of (await h.store.list(other, { limit: 5 })).rows) expect((await h.store.get(other, r.id))?.trace).toEqual(trace);
    });

    test("a workflow's logged cost sums its rows only, once however often its batch is retried", async () => {
      const h = await make();
      const p = project("workflow");
      const rows = [
        record(p, T0, { workflowId: "wf_1", cost: 0.25 }),
        record(p, T0 + 1, { workflowId: "wf_1", cost: 0.5 }),
        record(p, T0 + 2, { workflowId: "wf_2", cost: 4 }),
        record(project("workflow_other"), T0, { workflowId: "wf_1", cost: 8 }),
      ];
      await h.store.writeBatch(rows.map(prepareRow));
      await h.store.writeBatch(rows.map(prepareRow));
      expect(await h.store.workflowCost(p, "wf_1")).toBeCloseTo(0.75, 12);
      expect(await h.store.workflowCost(p, "wf_none")).toBe(0);
    });
  });
}
