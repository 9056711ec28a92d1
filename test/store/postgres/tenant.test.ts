// The tenant stores' contract against PostgreSQL (src/store/postgres/tenant.ts) on a real throwaway
// cluster; a second pool stands for another instance.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openPostgres, type Postgres } from "../../../src/store/postgres/connect.ts";
import { migratePostgres } from "../../../src/store/postgres/migrate.ts";
import { postgresTenantStores } from "../../../src/store/postgres/tenant.ts";
import { type PostgresService, startPostgres } from "../../helpers/services.ts";
import { tenantContract } from "../contract/tenant.contract.ts";

let service: PostgresService;
let pg: Postgres;
let other: Postgres;
beforeAll(async () => {
  service = await startPostgres();
  pg = openPostgres(service.url, { max: 4, timeoutMs: 10_000 });
  other = openPostgres(service.url, { max: 2, timeoutMs: 10_000 });
  await migratePostgres(pg.sql);
});
afterAll(async () => {
  await pg?.close();
  await other?.close();
  await service?.stop();
});

tenantContract("postgres", async () => ({ stores: postgresTenantStores(pg), fresh: () => postgresTenantStores(other) }));

describe("postgres tenant stores", () => {
  test("the key hash and the sealed provider key are the only forms stored; the credit limit is nano-USD", async () => {
    const stores = postgresTenantStores(pg);
    const id = `prj_raw_${process.pid}`;
    await stores.projects.create({ id, name: "raw", plan: "pro", billingMode: "postpaid", creditLimit: 2.5, policy: {}, createdAt: 1 });
    await stores.keys.create({ id: `key_raw_${process.pid}`, projectId: id, name: null, keyHash: "ab".repeat(32), mode: "live", scopes: ["chat"], byok: false, ipAllowlist: null, createdAt: 1, revokedAt: null });
    await stores.providerKeys.put({ projectId: id, provider: "openai", sealedKey: "v1.c2VhbGVk", baseUrl: null, updatedAt: 1 });
    const [row] = await pg.sql`SELECT p.credit_limit::text AS limit_nano, k.key_hash, pk.sealed_key FROM projects p
      JOIN api_keys k ON k.project_id = p.id JOIN provider_keys pk ON pk.project_id = p.id WHERE p.id = ${id}`;
    expect(row).toEqual({ limit_nano: "2500000000", key_hash: "ab".repeat(32), sealed_key: "v1.c2VhbGVk" });
  });
});
