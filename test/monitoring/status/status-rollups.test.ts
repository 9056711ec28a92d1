// Status rollups written with the request-log rows (docs/monitoring.md "Status page"): which
// components a row counts for, caller-side errors left out, test mode never a provider's, and
// totals and daily counts equal to the rows across compaction, late rows and a retried batch.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { idAt, prng } from "../../../bench/observability/rows.ts";
import { openDatabase } from "../../../src/store/db.ts";
import { logMaintenance } from "../../../src/store/log-maintenance.ts";
import { prepareRow } from "../../../src/store/log-batch-codec.ts";
import { requestsRepo, type RequestRecord } from "../../../src/store/repos/requests.ts";
import { statusComponentsOf, statusRollupsRepo } from "../../../src/store/repos/status-rollups.ts";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 26, 12, 34, 56, 789);
const CATEGORIES = [null, null, null, null, "UPSTREAM_ERROR", "TIMEOUT", "VALIDATION_FAILED", "NO_MODEL_AVAILABLE", "INTERNAL", "RATE_LIMIT"];

function row(over: Partial<RequestRecord> & { createdAt: number }, i = 0, rand = Math.random): RequestRecord {
  const id = `req_${idAt(over.createdAt, i, rand)}`;
  return {
    id, projectId: "prj_a", keyId: null, traceId: `trc_${id.slice(4)}`, endpoint: "chat.completions", requestedModel: "gw-auto",
    selectedModel: "openai/gpt-4o-mini", provider: "openai", task: null, taskSubtype: null, inputTokens: 1, outputTokens: 1, cost: 0,
    saved: 0, cache: null, status: 200, errorCode: null, errorMessage: null, errorCategory: null, latencyMs: 120, ttftMs: null,
    overheadMs: 1, fallbacks: 0, workflowId: null, step: null, tags: [], stream: false, test: false, trace: null, ...over,
  };
}

const componentsOf = (r: RequestRecord): Record<string, boolean> => {
  const out: Record<string, boolean> = {};
  statusComponentsOf(prepareRow(r).values, (c, ok) => (out[c] = ok));
  return out;
};

describe("statusComponentsOf", () => {
  const at = T0;
  test("a success counts for api, cache, routing and its provider", () => {
    expect(componentsOf(row({ createdAt: at }))).toEqual({ api: true, cache: true, routing: true, "provider:openai": true });
  });
  test("a caller-side error counts for nothing", () => {
    expect(componentsOf(row({ createdAt: at, errorCategory: "VALIDATION_FAILED", status: 400 }))).toEqual({});
    expect(componentsOf(row({ createdAt: at, errorCategory: "BUDGET_EXCEEDED", status: 402 }))).toEqual({});
  });
  test("test mode counts for api, cache and routing, never for a provider", () => {
    expect(componentsOf(row({ createdAt: at, test: true }))).toEqual({ api: true, cache: true, routing: true });
    expect(componentsOf(row({ createdAt: at, test: true, errorCategory: "UPSTREAM_ERROR" }))).toEqual({ api: false, cache: true, routing: false });
  });
  test("an upstream error (every candidate failed) fails api, routing and the provider the failed row's model names", () => {
    const failed = { createdAt: at, provider: null, selectedModel: null, requestedModel: "anthropic/claude-3-5-haiku" };
    expect(componentsOf(row({ ...failed, errorCategory: "UPSTREAM_ERROR" }))).toEqual({ api: false, cache: true, routing: false, "provider:anthropic": false });
    expect(componentsOf(row({ ...failed, errorCategory: "PROVIDER_UNAVAILABLE" }))["provider:anthropic"]).toBe(false);
    // gw-auto names no provider: the failure is the API's and routing's only.
    expect(componentsOf(row({ ...failed, requestedModel: "gw-auto", errorCategory: "TIMEOUT" }))).toEqual({ api: false, cache: true, routing: false });
    expect(componentsOf(row({ ...failed, errorCategory: "NO_MODEL_AVAILABLE" }))).toEqual({ api: false, cache: true, routing: false, "provider:anthropic": true });
  });
  test("a 429 (gw's limit or the provider's: the row cannot say) fails the API only", () => {
    expect(componentsOf(row({ createdAt: at, provider: null, errorCategory: "RATE_LIMIT", requestedModel: "openai/gpt-4o-mini" })))
      .toEqual({ api: false, cache: true, routing: true, "provider:openai": true });
  });
  test("a cache hit is the cache's, not routing's or a provider's; gw-test scenarios skip the cache", () => {
    expect(componentsOf(row({ createdAt: at, cache: "exact" }))).toEqual({ api: true, cache: true });
    expect(componentsOf(row({ createdAt: at, requestedModel: "gw-test:ok", test: true }))).toEqual({ api: true, routing: true });
  });
  test("an internal error is gw's: the provider stays ok", () => {
    expect(componentsOf(row({ createdAt: at, errorCategory: "INTERNAL" }))["provider:openai"]).toBe(true);
  });
});

describe("status rollups through the log insert path", () => {
  let dir: string;
  let db: Database;
  let rows: RequestRecord[];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "gw-status-rollups-"));
    db = openDatabase(dir);
    const requests = requestsRepo(db);
    const maintenance = logMaintenance(db, { requests });
    const rand = prng(29);
    rows = [];
    for (let i = 0; i < 5000; i++) {
      const createdAt = Math.floor(T0 - 95 * DAY + rand() * 95 * DAY);
      rows.push(row({
        createdAt, errorCategory: CATEGORIES[Math.floor(rand() * CATEGORIES.length)]!, provider: rand() < 0.5 ? "openai" : "anthropic",
        cache: rand() < 0.1 ? "exact" : null, test: rand() < 0.2, latencyMs: Math.floor(rand() * 3000),
      }, i, rand));
    }
    rows.sort((a, b) => a.createdAt - b.createdAt);
    const late = rows.filter(() => rand() < 0.05);
    const onTime = rows.filter((r) => !late.includes(r));
    for (let i = 0; i < onTime.length; i += 250) {
      const batch = onTime.slice(i, i + 250);
      requests.insertPrepared(batch.map(prepareRow));
      maintenance.pass(batch.at(-1)!.createdAt, 0);
    }
    requests.insertPrepared(late.map(prepareRow));
    requests.insertPrepared(rows.slice(0, 300).map(prepareRow));
  });

  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const expected = (component: string, from: number, to: number) => {
    let requests = 0;
    let ok = 0;
    for (const r of rows) {
      if (r.createdAt < from || r.createdAt >= to) continue;
      const c = componentsOf(r);
      if (!(component in c)) continue;
      requests++;
      if (c[component]) ok++;
    }
    return { requests, ok };
  };

  test("totals equal the rows over minute, hour-spanning and 7-day windows", () => {
    const repo = statusRollupsRepo(db);
    const end = T0 - (T0 % 60_000) + 60_000;
    for (const component of ["api", "routing", "cache", "provider:openai", "provider:anthropic"]) {
      for (const span of [5 * 60_000, 26 * 3_600_000, 7 * DAY]) {
        const from = end - span;
        const t = repo.totals(component, from, end);
        expect({ requests: t.requests, ok: t.ok }).toEqual(expected(component, from, end));
        expect(t.latency.reduce((a, b) => a + b, 0)).toBe(t.requests);
      }
    }
  });

  test("daily counts per UTC day equal the rows for the last 90 days", () => {
    const repo = statusRollupsRepo(db);
    for (const component of ["api", "provider:anthropic"]) {
      const days = repo.daily(component, 90, T0);
      expect(days.length).toBe(90);
      const first = Date.parse(`${days[0]!.day}T00:00:00Z`);
      expect(first).toBe(T0 - (T0 % DAY) - 89 * DAY);
      for (const d of days) {
        const from = Date.parse(`${d.day}T00:00:00Z`);
        expect({ requests: d.requests, ok: d.ok }).toEqual(expected(component, from, Math.min(from + DAY, T0 + 60_000)));
      }
    }
  });

  test("components seen lately, and pruning keeps 100 days of hour rows", () => {
    const repo = statusRollupsRepo(db);
    expect(repo.components(T0 - DAY)).toEqual(["api", "cache", "provider:anthropic", "provider:openai", "routing"]);
    const before = db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM status_rollups WHERE bucket_ms = 3600000").get()!.n;
    logMaintenance(db).pass(T0 + 6 * DAY, 0);
    const after = db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM status_rollups WHERE bucket_ms = 3600000").get()!.n;
    expect(after).toBeLessThan(before);
    const later = T0 + 6 * DAY;
    expect(repo.daily("api", 90, later)[0]!.day).toBe(new Date(later - 89 * DAY).toISOString().slice(0, 10));
  });
});
