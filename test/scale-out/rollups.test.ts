// GET /v1/metrics on a multi-instance gw (docs/scale-out.md "Request log and metrics") answers the
// same JSON for every period before and after the leader's hour compaction folded its minute rollups.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createProject } from "../../src/admin/projects.ts";
import { issueKey } from "../../src/auth/api-keys.ts";
import { METRICS_PERIODS } from "../../src/schema/metrics.ts";
import { prepareRow } from "../../src/store/log-batch-codec.ts";
import { foldRollups } from "../../src/store/postgres/rollup-hours.ts";
import { startPostgres, startRedis, type PostgresService, type Service } from "../helpers/services.ts";
import { get } from "../helpers/test-gw.ts";
import { startSharedInstance, type SharedInstance } from "../helpers/shared-gw.ts";
import { record } from "../store/contract/request-log.contract.ts";

let pg: PostgresService;
let redis: Service;
let instance: SharedInstance;
let key = "";
let projectId = "";

beforeAll(async () => {
  [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  instance = await startSharedInstance(pg, redis);
  const created = createProject(instance.server.deps.repos.projects, { name: "rollups" });
  const { balance: _, ...p } = created;
  const issued = issueKey(instance.server.deps.repos.apiKeys, { projectId: p.id, scopes: ["requests"], mode: "test" });
  await instance.shared.tenants.projects.create(p);
  await instance.shared.tenants.keys.create(issued.key);
  projectId = p.id;
  key = issued.secret;
});
afterAll(async () => {
  await instance?.stop();
  await Promise.all([redis?.stop(), pg?.stop()]);
});

const MINUTE = 60_000;
const periods = Object.keys(METRICS_PERIODS);
const everyPeriod = async (): Promise<unknown[]> => Promise.all(periods.map(async (period) => {
  const res = await get(`${instance.server.url}/metrics?period=${period}`, key);
  expect(res.status).toBe(200);
  return res.json();
}));

test("GET /v1/metrics answers the same JSON for every period before and after hour compaction", async () => {
  const now = Date.now();
  // A row every 47 minutes over 30 days, none within 10 minutes of a period's edge (the test's own
  // minutes pass while it runs), with errors, fallbacks and latencies varied.
  const edges = Object.values(METRICS_PERIODS).map((ms) => now - ms);
  const rows = [];
  for (let at = now - 30 * 86_400_000 + 10 * MINUTE, i = 0; at < now - 10 * MINUTE; at += 47 * MINUTE, i++) {
    if (edges.some((e) => Math.abs(at - e) < 10 * MINUTE)) continue;
    rows.push(prepareRow(record(projectId, at, {
      latencyMs: 30 + ((i * 53) % 700), ttftMs: 4 + (i % 40), cost: 0.00002 * (1 + (i % 4)), fallbacks: i % 13 === 0 ? 1 : 0,
      ...(i % 9 === 0 ? { status: 502, errorCode: "upstream_error", errorMessage: "x", errorCategory: "PROVIDER" } : {}),
    })));
  }
  for (let i = 0; i < rows.length; i += 300) await instance.shared.logs.writeBatch(rows.slice(i, i + 300));
  const before = await everyPeriod();
  expect((before[3] as { requests: number }).requests).toBe(rows.length);

  let folded = 0;
  for (;;) {
    const done = await instance.shared.pg.sql.begin((tx) => foldRollups(tx, Date.now()));
    if (done.minutes === 0) break;
    folded += done.minutes;
  }
  expect(folded).toBeGreaterThan(rows.length / 2);
  expect(await everyPeriod()).toEqual(before);
});
