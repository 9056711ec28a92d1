// A throwaway PostgreSQL for one test file, migrated, with one pool on it (docs/scale-out.md "Test
// services"): started before the file's tests and stopped after them.
import { afterAll, beforeAll } from "bun:test";
import { openPostgres, type Postgres } from "../../src/store/postgres/connect.ts";
import { migratePostgres } from "../../src/store/postgres/migrate.ts";
import { startPostgres, type PostgresService } from "./services.ts";

/** `use` receives the server and the pool once both are ready, before the first test. */
export function migratedPostgresForFile(pool: { max: number; timeoutMs: number }, use: (service: PostgresService, pg: Postgres) => void): void {
  let service: PostgresService | undefined;
  let pg: Postgres | undefined;
  beforeAll(async () => {
    service = await startPostgres();
    pg = openPostgres(service.url, pool);
    await migratePostgres(pg.sql);
    use(service, pg);
  });
  afterAll(async () => {
    await pg?.close();
    await service?.stop();
  });
}
