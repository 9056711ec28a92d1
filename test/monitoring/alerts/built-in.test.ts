// Built-in provider rules (docs/monitoring.md "Incidents") over a real incidents table and scripted
// status totals: the latency rule against the provider's own 7-day p95 with its 10-minute `for`,
// the 20-request floor, and state rebuilt from the open incident after a restart.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bucketOf, emptyHistogram } from "../../../src/lib/histogram.ts";
import { BuiltInRules } from "../../../src/monitoring/alerts/built-in.ts";
import { openDatabase } from "../../../src/store/db.ts";
import { incidentsRepo, sqliteIncidentsStore, type IncidentsRepo } from "../../../src/store/repos/incidents.ts";
import type { StatusTotals } from "../../../src/store/repos/status-rollups.ts";

const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);

let dir: string;
let db: Database;
let incidents: IncidentsRepo;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gw-built-in-"));
  db = openDatabase(dir);
  incidents = incidentsRepo(db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function totals(requests: number, ok: number, latencyMs: number): StatusTotals {
  const latency = emptyHistogram();
  latency[bucketOf(latencyMs)] = requests;
  return { requests, ok, latency };
}

/** The baseline (a range of days) answers 100 ms; the 5-minute window answers what `now` says. */
function source(current: () => StatusTotals) {
  return async (_component: string, from: number, to: number): Promise<StatusTotals> => (to - from > 86_400_000 ? totals(10_000, 10_000, 100) : current());
}

/** The pass's stores: the incidents table through its store interface. */
const stores = () => ({ incidents: sqliteIncidentsStore(incidents) });

describe("built-in provider rules", () => {
  test("p95 over twice the baseline for 10 minutes opens a warning; back under resolves it", async () => {
    let now = totals(50, 50, 500);
    const rules = new BuiltInRules(source(() => now), () => ["openai"]);
    for (let m = 0; m < 10; m++) {
      await rules.evaluate(T0 + m * MIN, stores());
      expect(incidents.openOf("builtin:provider-openai:latency")).toBeNull();
    }
    await rules.evaluate(T0 + 10 * MIN, stores());
    const open = incidents.openOf("builtin:provider-openai:latency");
    expect(open).toMatchObject({ projectId: null, component: "provider-openai", severity: "warning", metric: "latency_p95", window: "5m", status: "opened" });
    expect(open!.threshold).toBeGreaterThan(150); // twice the histogram's p95 of 100 ms
    expect(open!.threshold).toBeLessThan(300);
    expect(incidents.openOf("builtin:provider-openai:availability")).toBeNull();
    now = totals(50, 50, 100);
    await rules.evaluate(T0 + 11 * MIN, stores());
    expect(incidents.openOf("builtin:provider-openai:latency")).toBeNull();
    expect(incidents.builtInSince(T0)).toHaveLength(1);
  });

  test("fewer than 20 requests never open the availability rule", async () => {
    const rules = new BuiltInRules(source(() => totals(19, 0, 100)), () => ["openai"]);
    await rules.evaluate(T0, stores());
    expect(incidents.builtInSince(0)).toEqual([]);
  });

  test("a restart finds the open incident: no second one, and recovery resolves it", async () => {
    let now = totals(40, 10, 100);
    await new BuiltInRules(source(() => now), () => ["anthropic"]).evaluate(T0, stores());
    const open = incidents.openOf("builtin:provider-anthropic:availability");
    expect(open).toMatchObject({ severity: "critical", metric: "availability", threshold: 95, peakValue: 25 });
    const restarted = new BuiltInRules(source(() => now), () => ["anthropic"]);
    await restarted.evaluate(T0 + MIN, stores());
    expect(incidents.builtInSince(0)).toHaveLength(1);
    now = totals(40, 40, 100);
    await restarted.evaluate(T0 + 2 * MIN, stores());
    expect(incidents.builtInSince(0)).toEqual([expect.objectContaining({ id: open!.id, status: "resolved", resolvedAt: T0 + 2 * MIN })]);
  });
});
