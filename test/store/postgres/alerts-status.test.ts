// The alert store and status posts contracts against PostgreSQL (src/store/postgres/alerts.ts,
// status.ts) on a real throwaway cluster; and the leader's status rollup job over logged requests.
import { describe, expect, test } from "bun:test";
import type { Postgres } from "../../../src/store/postgres/connect.ts";
import { postgresAlertRules, postgresIncidents } from "../../../src/store/postgres/alerts.ts";
import { postgresStatusPosts } from "../../../src/store/postgres/status.ts";
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
