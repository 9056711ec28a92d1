// The alert store and status posts contracts against PostgreSQL (src/store/postgres/alerts.ts,
// status.ts) on a real throwaway cluster; and the leader's status rollup job over logged requests.
import { describe, expect, test } from "bun:test";
import type { Postgres } from "../../../src/store/postgres/connect.ts";
import { ManualClock } from "../../../src/lib/clock.ts";
import { bucketOf, emptyHistogram, encodeHistogram, percentile } from "../../../src/lib/histogram.ts";
import { AlertRules } from "../../../src/monitoring/alerts/alert-rules.ts";
import { monitoringLeaderJobs } from "../../../src/monitoring/alerts/build-alerts.ts";
import { BuiltInRules } from "../../../src/monitoring/alerts/built-in.ts";
import { SCOPED_SETTLE_MS, ScopedMinuteCache } from "../../../src/monitoring/alerts/scoped-minutes.ts";
import { postgresLogStore } from "../../../src/store/postgres/request-log.ts";
import { sortableId } from "../../../src/lib/ids.ts";
import { postgresAlertRules, postgresBuiltInStates, postgresIncidents, scopedMinutesIn, scopedTotalsIn } from "../../../src/store/postgres/alerts.ts";
import { ensurePartitions } from "../../../src/store/postgres/partitions.ts";
import { postgresStatusPosts, postgresStatusRollups, statusRollupJob } from "../../../src/store/postgres/status.ts";
import { migratedPostgresForFile } from "../../helpers/migrated-postgres.ts";
import { alertStoreContract } from "../contract/alert-store.contract.ts";
import { statusPostsContract } from "../contract/status-posts.contract.ts";

let pg: Postgres;
migratedPostgresForFile({ max: 4, timeoutMs: 10_000 }, (_service, pool) => (pg = pool));

alertStoreContract("postgres", () => ({ rules: postgresAlertRules({ pg }), incidents: postgresIncidents({ pg }) }));
// Each harness starts from an empty table: the contract reads whole pages.
statusPostsContract("postgres", async () => {
  await pg.sql`DELETE FROM status_updates`;
  await pg.sql`DELETE FROM status_posts`;
  return postgresStatusPosts({ pg });
});

interface Row { project: string; at: number; model?: string; provider?: string | null; category?: string | null; cache?: string | null; latency: number; test?: boolean; tags?: string[]; cost?: number }

async function log(rows: Row[]): Promise<void> {
  for (const r of rows) {
    await pg.sql`INSERT INTO requests (id, project_id, trace_id, created_at, endpoint, requested_model, selected_model, provider, status, error_category,
      cache, latency_ms, test, tags, cost, fallbacks)
      VALUES (${`req_${sortableId(r.at)}`}, ${r.project}, ${"t"}, ${r.at}, ${"/v1/chat/completions"}, ${r.model ?? "openai/gpt-4o-mini"}, ${r.model ?? "openai/gpt-4o-mini"},
        ${r.provider === undefined ? "openai" : r.provider}, ${r.category ? 502 : 200}, ${r.category ?? null}, ${r.cache ?? null}, ${r.latency}, ${r.test ?? false},
        ${pg.sql.array(r.tags ?? [], "TEXT")}, ${r.cost ?? 0}, 0)`;
  }
}

describe("status rollups and scoped totals from the shared request log", () => {
  test("the leader's job counts every row once per component as single-node does, and a rerun changes nothing", async () => {
    const now = Date.now();
    await ensurePartitions(pg.sql, now, 1);
    const minute = now - (now % 60_000);
    const p = `prj_status_${process.pid}`;
    await log([
      { project: p, at: minute + 1, latency: 100 },
      { project: p, at: minute + 2, latency: 200, category: "UPSTREAM_ERROR" },
      { project: p, at: minute + 3, latency: 10, cache: "exact" },
      // Caller-side: counts for no component.
      { project: p, at: minute + 4, latency: 5, category: "VALIDATION_FAILED" },
      // Test traffic: no provider component.
      { project: p, at: minute + 5, latency: 50, test: true },
    ]);
    const job = statusRollupJob(4000);
    const rollups = postgresStatusRollups({ pg });
    const read = async (c: string) => {
      const t = await rollups.totals(c, minute, minute + 60_000);
      return { requests: t.requests, ok: t.ok };
    };
    for (let run = 0; run < 2; run++) {
      await pg.sql.begin((tx) => job.run(tx, now));
      expect(await read("api")).toEqual({ requests: 4, ok: 3 });
      expect(await read("cache")).toEqual({ requests: 4, ok: 4 });
      expect(await read("routing")).toEqual({ requests: 3, ok: 2 });
      expect(await read("provider:openai")).toEqual({ requests: 2, ok: 1 });
    }
    expect(percentile((await rollups.totals("provider:openai", minute, minute + 60_000)).latency, 100)).toBeGreaterThanOrEqual(190);
    const [today] = await rollups.daily("api", 1, now);
    expect(today).toEqual({ day: new Date(now).toISOString().slice(0, 10), requests: 4, ok: 3 });
  });

  test("hour rows moved from SQLite count for the hours before a component's first minute row", async () => {
    const day = Date.UTC(2026, 0, 10);
    const hour = 3_600_000;
    const c = `provider:moved_${process.pid}`;
    const put = (bucket: number, start: number, requests: number, ok: number) =>
      pg.sql`INSERT INTO status_rollups (bucket_ms, start_ms, component, requests, ok, latency) VALUES (${bucket}, ${start}, ${c}, ${requests}, ${ok}, ${new Uint8Array(0)})`;
    await put(hour, day, 100, 90); // before the minutes: counted
    await put(hour, day + 2 * hour, 50, 50); // also kept as minutes below: not counted twice
    await put(60_000, day + 2 * hour, 30, 30);
    await put(60_000, day + 2 * hour + 60_000, 20, 20);
    const rollups = postgresStatusRollups({ pg });
    const t = await rollups.totals(c, day, day + 86_400_000);
    expect({ requests: t.requests, ok: t.ok }).toEqual({ requests: 150, ok: 140 });
    expect(await rollups.daily(c, 2, day + 86_400_000)).toEqual([{ day: "2026-01-10", requests: 150, ok: 140 }]);
  });

  test("a scoped rule's totals: only its model, provider, task or tag, within the window", async () => {
    const now = Date.now();
    // The oldest row is 10 minutes back: just after midnight, yesterday's partition.
    await ensurePartitions(pg.sql, now - 10 * 60_000, 1);
    await ensurePartitions(pg.sql, now, 1);
    const p = `prj_scoped_${process.pid}`;
    await log([
      { project: p, at: now - 1000, latency: 100, model: "anthropic/claude", provider: "anthropic", tags: ["blue"], cost: 2_000_000_000 },
      { project: p, at: now - 900, latency: 100, model: "anthropic/claude", provider: "anthropic", category: "TIMEOUT" },
      { project: p, at: now - 800, latency: 100, tags: ["blue"] },
      { project: p, at: now - 10 * 60_000, latency: 100, model: "anthropic/claude", provider: "anthropic" },
    ]);
    const from = now - 5 * 60_000;
    const claude = await scopedTotalsIn(pg, p, { model: "anthropic/claude" }, from, now + 60_000);
    expect({ requests: claude.requests, failed: claude.failed, errors: claude.errors, cost: claude.cost }).toEqual({ requests: 2, failed: 1, errors: { TIMEOUT: 1 }, cost: 2 });
    expect((await scopedTotalsIn(pg, p, { tag: "blue" }, from, now + 60_000)).requests).toBe(2);
    expect((await scopedTotalsIn(pg, p, { provider: "openai" }, from, now + 60_000)).requests).toBe(1);
    expect((await scopedTotalsIn(pg, p, { provider: "anthropic", tag: "blue" }, from, now + 60_000)).requests).toBe(1);
  });
});

describe("the leader's alert evaluation job", () => {
  test("one rule failing in the database rolls back its own writes only; the other's incident and state commit", async () => {
    const now = Date.now();
    const p = `prj_eval_${process.pid}`;
    await pg.sql`INSERT INTO metrics_rollups (bucket_ms, start_ms, project_id, requests, failed) VALUES (60000, ${now - (now % 60_000)}, ${p}, 10, 10)`;
    const errors: string[] = [];
    const emitted: string[] = [];
    const alerts = new AlertRules({
      rules: postgresAlertRules({ pg }), incidents: postgresIncidents({ pg }), projectTotals: (id, from, to) => postgresLogStore(pg).totals(id, from, to),
      budgetUse: () => null, emit: (e) => (emitted.push(`${e.type} ${e.key}`), null), clock: { now: () => now }, intervalMs: 1000,
      scoped: { kind: "query", totals: (rule, from, to) => scopedTotalsIn(pg, rule.projectId, rule.scope, from, to) }, onError: (_err, context) => errors.push(context),
    });
    const base = { metric: "error_rate", op: "gt", threshold: 50, window: "5m", min_requests: 5 };
    const good = await alerts.create(p, { ...base, name: "good" });
    const bad = await alerts.create(p, { ...base, name: `bad_${process.pid}` });
    // A real failure inside the transaction: the bad rule's incident insert is refused by a trigger.
    await pg.sql.unsafe(`CREATE FUNCTION refuse_bad() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      IF NEW.rule_name = 'bad_${process.pid}' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER refuse_bad BEFORE INSERT ON incidents FOR EACH ROW EXECUTE FUNCTION refuse_bad()`);
    try {
      const job = monitoringLeaderJobs(alerts, 1000).find((j) => j.name === "alert evaluation")!;
      await pg.sql.begin((tx) => job.run(tx, now));
    } finally {
      await pg.sql.unsafe("DROP TRIGGER refuse_bad ON incidents; DROP FUNCTION refuse_bad()");
    }
    expect(errors).toEqual([`alert rule ${bad.id} not evaluated`]);
    const incidents = postgresIncidents({ pg });
    expect(emitted).toEqual([`incident.opened ${(await incidents.openOf(good.id))?.id}:opened`]);
    expect(await incidents.openOf(good.id)).toMatchObject({ ruleName: "good", status: "opened", lastValue: 100 });
    expect(await incidents.openOf(bad.id)).toBeNull();
    expect((await alerts.get(good.id))?.state).toBe("firing");
    expect((await alerts.get(bad.id))?.state).toBe("normal");
  });
});

describe("a rule changed while the leader evaluates it", () => {
  test("the PATCH wins: that pass writes neither the state nor an incident; the next pass evaluates the new rule", async () => {
    const now = Date.now();
    const p = `prj_race_${process.pid}`;
    await pg.sql`INSERT INTO metrics_rollups (bucket_ms, start_ms, project_id, requests, failed) VALUES (60000, ${now - (now % 60_000)}, ${p}, 10, 10)`;
    let during: (() => Promise<unknown>) | null = null;
    const clock = new ManualClock(now);
    const alerts = new AlertRules({
      rules: postgresAlertRules({ pg }), incidents: postgresIncidents({ pg }),
      // The PATCH lands between the pass's read of the rules and its write (on another connection).
      projectTotals: async (id, from, to) => {
        const change = during;
        during = null;
        if (change) await change();
        return postgresLogStore(pg).totals(id, from, to);
      },
      budgetUse: () => null, emit: () => null, clock, intervalMs: 1000,
      scoped: { kind: "query", totals: (rule, from, to) => scopedTotalsIn(pg, rule.projectId, rule.scope, from, to) }, onError: () => undefined,
    });
    const rule = await alerts.create(p, { name: "race", metric: "error_rate", op: "gt", threshold: 50, window: "5m", min_requests: 5 });
    during = () => (clock.advance(1000), alerts.update(rule.id, { threshold: 60 }));
    const job = monitoringLeaderJobs(alerts, 1000).find((j) => j.name === "alert evaluation")!;
    await pg.sql.begin((tx) => job.run(tx, now));
    expect(await postgresIncidents({ pg }).openOf(rule.id)).toBeNull();
    expect(await alerts.get(rule.id)).toMatchObject({ threshold: 60, state: "normal" });
    await pg.sql.begin((tx) => job.run(tx, now + 2000));
    expect(await postgresIncidents({ pg }).openOf(rule.id)).toMatchObject({ threshold: 60, status: "opened" });
  });
});

describe("built-in provider rules across leaders", () => {
  test("leaders taking turns keep one latency episode: a new leader fires it once, 10 minutes after it began", async () => {
    const MIN = 60_000;
    const t0 = Date.now() - (Date.now() % MIN) - 30 * MIN;
    const provider = `slow${process.pid}`;
    const component = `provider:${provider}`;
    const histogram = (ms: number, n: number) => {
      const h = emptyHistogram();
      h[bucketOf(ms)] = n;
      return encodeHistogram(h);
    };
    // A day-old baseline at 100 ms, then 500 ms in every minute from 5 minutes before t0 on.
    await pg.sql`INSERT INTO status_rollups (bucket_ms, start_ms, component, requests, ok, latency) VALUES (60000, ${t0 - 86_400_000}, ${component}, 100000, 100000, ${histogram(100, 100_000)})`;
    for (let m = -5; m <= 11; m++) {
      await pg.sql`INSERT INTO status_rollups (bucket_ms, start_ms, component, requests, ok, latency) VALUES (60000, ${t0 + m * MIN}, ${component}, 50, 50, ${histogram(500, 50)})`;
    }
    const rollups = postgresStatusRollups({ pg });
    // Two leaders take turns; from minute 10 a third that never saw the episode leads.
    const leaders = [0, 1, 2].map(() => new BuiltInRules((c, from, to) => rollups.totals(c, from, to), () => [provider]));
    const ruleId = `builtin:provider-${provider}:latency`;
    for (let m = 0; m <= 11; m++) {
      await pg.sql.begin((tx) => leaders[m >= 10 ? 2 : m % 2]!.evaluate(t0 + m * MIN, { incidents: postgresIncidents({ tx }), builtInStates: postgresBuiltInStates({ tx }) }));
      const open = await postgresIncidents({ pg }).openOf(ruleId);
      if (m < 10) expect(open).toBeNull();
      else expect(open).toMatchObject({ openedAt: t0 + 10 * MIN, component: `provider-${provider}`, metric: "latency_p95" });
    }
    const [count] = await pg.sql`SELECT count(*)::int AS n FROM incidents WHERE rule_id = ${ruleId}`;
    expect(count?.n).toBe(1);
  });
});

describe("scoped rules' minutes across passes", () => {
  test("settled minutes are read once; later passes read only the unsettled ones; a changed rule reads its window again", async () => {
    const now = Date.now();
    await ensurePartitions(pg.sql, now - 86_400_000, 2);
    const p = `prj_minutes_${process.pid}`;
    const model = "openai/gpt-4o-mini";
    await log([
      ...[1, 2, 3, 4, 5].map((n) => ({ project: p, at: now - 20 * 60_000 - n, latency: 100 })),
      ...[1, 2, 3].map((n) => ({ project: p, at: now - 10 * 60_000 - n, latency: 100, category: "TIMEOUT" })),
      { project: p, at: now - 1, latency: 100, model: "anthropic/claude", provider: "anthropic" },
    ]);
    const reads: number[] = [];
    const cache = new ScopedMinuteCache(async (projectId, scope, from, to) => (reads.push(from), scopedMinutesIn(pg, projectId, scope, from, to)));
    const rule = { id: `alr_minutes_${process.pid}`, version: "1", projectId: p, scope: { model } };
    const from = now - (now % 60_000) - 3_600_000;
    const to = now - (now % 60_000) + 60_000;
    const first = await cache.totals(rule, from, to, now);
    expect({ requests: first.requests, failed: first.failed }).toEqual({ requests: 8, failed: 3 });
    await log([{ project: p, at: now, latency: 100 }]);
    const second = await cache.totals(rule, from, to, now + 1);
    expect({ requests: second.requests, failed: second.failed }).toEqual({ requests: 9, failed: 3 });
    const settled = now - (now % 60_000) - SCOPED_SETTLE_MS;
    expect(reads).toEqual([from, settled]);
    await cache.totals({ ...rule, version: "2" }, from, to, now + 2);
    expect(reads).toEqual([from, settled, from]);
  });
});
