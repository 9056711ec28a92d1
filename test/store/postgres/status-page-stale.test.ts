// The status page over PostgreSQL (docs/scale-out.md): with the server gone, the page last built is
// still served (a status page is read most when something is down); before any build, the error.
import { afterAll, expect, test } from "bun:test";
import { ManualClock } from "../../../src/lib/clock.ts";
import { StatusPage } from "../../../src/monitoring/status/status-page.ts";
import { openPostgres, type Postgres } from "../../../src/store/postgres/connect.ts";
import { migratePostgres } from "../../../src/store/postgres/migrate.ts";
import { postgresIncidents } from "../../../src/store/postgres/alerts.ts";
import { postgresStatusPosts, postgresStatusRollups } from "../../../src/store/postgres/status.ts";
import { startPostgres, type PostgresService } from "../../helpers/services.ts";

let service: PostgresService | undefined;
let pg: Postgres | undefined;
afterAll(async () => {
  await pg?.close();
  await service?.stop();
});

test("PostgreSQL stopped: the last page is served; a page never built answers the store's error", async () => {
  service = await startPostgres();
  pg = openPostgres(service.url, { max: 2, timeoutMs: 1_000 });
  await migratePostgres(pg.sql);
  const clock = new ManualClock(Date.UTC(2026, 10, 26, 12));
  const page = (): StatusPage => new StatusPage({
    rollups: postgresStatusRollups({ pg: pg! }), posts: postgresStatusPosts({ pg: pg! }), clock, providers: () => ["openai"],
    builtInIncidents: async (since) => (await postgresIncidents({ pg: pg! }).builtInSince(since)).map((i) => ({
      id: i.id, component: i.component ?? "", rule_name: i.ruleName, severity: i.severity, metric: i.metric, opened_at: i.openedAt, resolved_at: i.resolvedAt,
    })),
    page: { name: "gw", url: "http://127.0.0.1/status" },
  });
  const built = page();
  const posted = await built.createIncident({ name: "Slow answers", components: ["api"], body: "Looking." });
  const first = JSON.parse(await built.json()) as { incidents: Array<{ id: string }> };
  expect(first.incidents.map((i) => i.id)).toEqual([posted.id]);

  await service.stop();
  clock.advance(60_000);
  const stale = JSON.parse(await built.json()) as { incidents: Array<{ id: string }> };
  expect(stale.incidents.map((i) => i.id)).toEqual([posted.id]);
  expect(await built.html()).toContain("Slow answers");
  await expect(page().json()).rejects.toThrow(/PostgreSQL unavailable/);
}, 60_000);
