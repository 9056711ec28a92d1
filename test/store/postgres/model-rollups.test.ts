// The leader's per-model rollups on PostgreSQL (src/store/postgres/model-rollups.ts) against
// single-node's (repos/model-rollups.ts): the same request rows give the same rows, minute and hour;
// a re-run changes nothing; a row landing late in a rebuilt minute is counted on the next run.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sortableId } from "../../../src/lib/ids.ts";
import { openDatabase } from "../../../src/store/db.ts";
import { COLUMNS, type SqlValue } from "../../../src/store/log-batch-codec.ts";
import type { Postgres } from "../../../src/store/postgres/connect.ts";
import { modelRows, rebuildModelRollups } from "../../../src/store/postgres/model-rollups.ts";
import { ensurePartitions } from "../../../src/store/postgres/partitions.ts";
import { modelRollupsRepo, type ModelRollupRow } from "../../../src/store/repos/model-rollups.ts";
import { migratedPostgresForFile } from "../../helpers/migrated-postgres.ts";

let pg: Postgres;
migratedPostgresForFile({ max: 4, timeoutMs: 10_000 }, (_s, p) => (pg = p));
const dir = mkdtempSync(join(tmpdir(), "gw-model-rollups-"));
const db = openDatabase(dir);
afterAll(() => (db.close(), rmSync(dir, { recursive: true, force: true })));

interface Row { at: number; model?: string | null; task?: string | null; category?: string | null; cache?: string | null; latency: number; cost?: number; saved?: number; test?: boolean; input?: number; output?: number }

let seq = 0;
async function log(project: string, rows: Row[]): Promise<void> {
  const sqlite = modelRollupsRepo(db).batch();
  for (const r of rows) {
    const id = `req_${sortableId(r.at)}${seq++}`;
    const model = r.model === undefined ? "openai/gpt-4o-mini" : r.model;
    const v: Record<(typeof COLUMNS)[number], SqlValue> = {
      id, project_id: project, key_id: null, trace_id: "t", created_at: r.at, endpoint: "/v1/chat/completions", requested_model: model,
      selected_model: model, provider: "openai", task: r.task === undefined ? "chat" : r.task, task_subtype: null, input_tokens: r.input ?? 10,
      output_tokens: r.output ?? 5, cost: r.cost ?? 0, saved: r.saved ?? 0, cache: r.cache ?? null, status: r.category ? 502 : 200, error_code: null,
      error_message: null, error_category: r.category ?? null, latency_ms: r.latency, ttft_ms: null, overhead_ms: null, fallbacks: 0,
      workflow_id: null, step: null, tags: "[]", stream: 0, test: r.test ? 1 : 0,
    };
    sqlite.add(COLUMNS.map((c) => v[c]));
    await pg.sql`INSERT INTO requests (id, project_id, trace_id, created_at, endpoint, requested_model, selected_model, provider, task, input_tokens,
      output_tokens, cost, saved, cache, status, error_category, latency_ms, test, fallbacks)
      VALUES (${id}, ${project}, ${"t"}, ${r.at}, ${"/v1/chat/completions"}, ${model}, ${model}, ${"openai"}, ${v.task}, ${v.input_tokens}, ${v.output_tokens},
        ${Math.round((r.cost ?? 0) * 1e9)}, ${Math.round((r.saved ?? 0) * 1e9)}, ${r.cache ?? null}, ${v.status}, ${r.category ?? null}, ${r.latency}, ${r.test ?? false}, 0)`;
  }
  sqlite.write();
}

const round = (r: ModelRollupRow) => ({ ...r, cost: Math.round(r.cost * 1e9), saved: Math.round(r.saved * 1e9), hit_saved: Math.round(r.hit_saved * 1e9), latency: [...r.latency] });
const sorted = (rows: Iterable<ModelRollupRow>) => [...rows].map(round).sort((a, b) => a.start_ms - b.start_ms || `${a.model}|${a.task}|${a.test}`.localeCompare(`${b.model}|${b.task}|${b.test}`));

describe("model rollups rebuilt by the leader", () => {
  test("the same rows as single-node's for the same requests; a re-run changes nothing; a late row counts next run", async () => {
    const now = Date.now();
    // The oldest row is 2 minutes back: just after midnight, yesterday's partition.
    await ensurePartitions(pg.sql, now - 180_000, 1);
    await ensurePartitions(pg.sql, now, 1);
    const minute = now - (now % 60_000);
    const p = `prj_models_${process.pid}`;
    await log(p, [
      { at: minute - 120_000 + 1, latency: 100, cost: 0.000125 },
      { at: minute - 120_000 + 2, latency: 250, cost: 0.0002, category: "UPSTREAM_ERROR" },
      { at: minute - 60_000 + 3, latency: 10, cache: "exact", saved: 0.000125, input: 40, output: 7 },
      { at: minute - 60_000 + 4, latency: 12, cache: "semantic", saved: 0.0001, model: "anthropic/claude-3-haiku", task: "code" },
      { at: minute + 5, latency: 5, category: "VALIDATION_FAILED", model: null, task: null },
      { at: minute + 6, latency: 50, test: true },
    ]);
    const runAt = async (t: number) => pg.sql.begin((tx) => rebuildModelRollups(tx, t));
    await runAt(now);
    const expected = sorted(modelRollupsRepo(db).rows(p, minute - 3_600_000, minute + 60_000));
    expect(expected.length).toBe(5);
    const read = async () => sorted(await modelRows(pg, p, minute - 3_600_000, minute + 60_000));
    expect(await read()).toEqual(expected);
    // Hour rows: the hour of `minute` sums its minute rows, as single-node's compaction would.
    const hour = minute - (minute % 3_600_000);
    const hours = await pg.sql`SELECT sum(requests)::int AS n FROM model_rollups WHERE bucket_ms = 3600000 AND start_ms = ${hour} AND project_id = ${p}`;
    const inHour = expected.filter((r) => r.start_ms >= hour).reduce((s, r) => s + r.requests, 0);
    expect(Number(hours[0]!.n)).toBe(inHour);

    // A minute row past 32 days goes (its hour row stays); a re-run changes nothing else.
    const old = minute - 33 * 86_400_000;
    await pg.sql`INSERT INTO model_rollups (bucket_ms, start_ms, project_id, model, task, test) VALUES (60000, ${old}, ${p}, 'm', '', false),
      (3600000, ${old - (old % 3_600_000)}, ${p}, 'm', '', false)`;
    await runAt(now + 1000);
    expect(await read()).toEqual(expected);
    const left = await pg.sql`SELECT bucket_ms::int AS b FROM model_rollups WHERE project_id = ${p} AND start_ms < ${minute - 32 * 86_400_000}`;
    expect(left.map((r: { b: number }) => r.b)).toEqual([3_600_000]);

    // A row committed late into a minute already rebuilt (a long stream): counted once, on the next run.
    await log(p, [{ at: minute - 60_000 + 9, latency: 900, cost: 0.001 }]);
    await runAt(now + 2000);
    await runAt(now + 3000);
    expect(await read()).toEqual(sorted(modelRollupsRepo(db).rows(p, minute - 3_600_000, minute + 60_000)));
  });

  test("a window of whole hours reads the hour rows: the same totals as the minutes", async () => {
    const now = Date.now();
    const hour = now - (now % 3_600_000);
    const p = `prj_models_hours_${process.pid}`;
    // Rows inside the last five minutes only, so one run rebuilds them all.
    await log(p, [{ at: now - 30_000, latency: 80, cost: 0.00003 }, { at: now - 20_000, latency: 90, cost: 0.00004, model: "openai/gpt-4o" }]);
    await pg.sql.begin((tx) => rebuildModelRollups(tx, now));
    const sum = (rows: ModelRollupRow[]) => rows.reduce((s, r) => ({ requests: s.requests + r.requests, cost: s.cost + Math.round(r.cost * 1e9) }), { requests: 0, cost: 0 });
    const fromHours = await modelRows(pg, p, hour - 3_600_000, hour + 3_600_000);
    expect(fromHours.length).toBeGreaterThan(0);
    expect(sum(fromHours)).toEqual({ requests: 2, cost: 70_000 });
    const minutes = now - (now % 60_000) - 60_000;
    expect(sum(await modelRows(pg, p, minutes, minutes + 120_000))).toEqual({ requests: 2, cost: 70_000 });
  });
});
