// The dashboard sessions' and audit log's contracts against PostgreSQL (src/store/postgres/
// dashboard-sessions.ts, audit-log.ts) on a real throwaway cluster; a second pool stands for another instance.
import { afterAll, describe, expect, test } from "bun:test";
import { type Postgres, openPostgres } from "../../../src/store/postgres/connect.ts";
import { postgresAuditLog } from "../../../src/store/postgres/audit-log.ts";
import { postgresDashboardSessions } from "../../../src/store/postgres/dashboard-sessions.ts";
import { migratedPostgresForFile } from "../../helpers/migrated-postgres.ts";
import { auditLogContract } from "../contract/audit-log.contract.ts";
import { dashboardSessionsContract } from "../contract/dashboard-sessions.contract.ts";

let pg: Postgres;
let other: Postgres;
migratedPostgresForFile({ max: 4, timeoutMs: 10_000 }, (service, pool) => {
  pg = pool;
  other = openPostgres(service.url, { max: 2, timeoutMs: 10_000 });
});
afterAll(async () => {
  await other?.close();
});

dashboardSessionsContract("postgres", async () => ({ store: postgresDashboardSessions(pg), other: postgresDashboardSessions(other) }));

auditLogContract("postgres", async () => ({
  store: postgresAuditLog(pg), other: postgresAuditLog(other),
  dump: async () => JSON.stringify(await pg.sql`SELECT * FROM audit_log`),
}));

describe("postgres audit log", () => {
  test("the table stays append-only: UPDATE and DELETE abort", async () => {
    await expect(pg.sql`UPDATE audit_log SET action = 'x'`).rejects.toThrow(/append-only/);
    await expect(pg.sql`DELETE FROM audit_log`).rejects.toThrow(/append-only/);
  });
});
