// SSO clients on a real PostgreSQL (src/store/postgres/sso.ts): the store contract, a domain claimed
// by one project only even when two instances save at once, and an instance's SQLite copy made
// equal to PostgreSQL's rows.
import { afterAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../../src/store/db.ts";
import { openPostgres, type Postgres } from "../../../src/store/postgres/connect.ts";
import { mirrorSsoClients, postgresSsoStore } from "../../../src/store/postgres/sso.ts";
import { projectSsoRepo, type StoredSso } from "../../../src/store/repos/project-sso.ts";
import { migratedPostgresForFile } from "../../helpers/migrated-postgres.ts";
import type { PostgresService } from "../../helpers/services.ts";
import { projectSsoContract } from "../contract/project-sso.contract.ts";

let service: PostgresService;
let pg: Postgres;
const others: Postgres[] = [];
migratedPostgresForFile({ max: 4, timeoutMs: 10_000 }, (s, p) => {
  service = s;
  pg = p;
});
const dir = mkdtempSync(join(tmpdir(), "gw-sso-mirror-"));
const db: Database = openDatabase(dir);
afterAll(async () => {
  await Promise.all(others.map((p) => p.close()));
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function otherPool(): Postgres {
  const p = openPostgres(service.url, { max: 2, timeoutMs: 10_000 });
  others.push(p);
  return p;
}

projectSsoContract("postgres", async () => ({ store: postgresSsoStore(pg), fresh: () => postgresSsoStore(otherPool()) }));

const T0 = Date.UTC(2026, 10, 26, 12);
const client = (projectId: string, domains: string[], at = T0): StoredSso => ({
  projectId, issuer: "https://idp.example.com", clientId: `client_${projectId}`, sealedSecret: "v1.c2VhbGVk", allowedDomains: domains, createdAt: at, updatedAt: at,
});

describe("postgres SSO clients", () => {
  test("a domain another project holds is refused, naming it, and nothing is written; a project may save its own domains again", async () => {
    const store = postgresSsoStore(pg);
    expect(await store.putUnlessClaimed(client("prj_claim_a", ["a.example.net"]))).toMatchObject({ ok: true });
    expect(await store.putUnlessClaimed(client("prj_claim_b", ["b.example.net", "a.example.net"]))).toEqual({ ok: false, domain: "a.example.net" });
    expect(await store.get("prj_claim_b")).toBeNull();
    const again = await store.putUnlessClaimed({ ...client("prj_claim_a", ["a.example.net", "c.example.net"], T0 + 9) });
    // The first creation time is kept.
    expect(again).toEqual({ ok: true, stored: { ...client("prj_claim_a", ["a.example.net", "c.example.net"], T0 + 9), createdAt: T0 } });
  });

  test("two instances saving one domain for two projects at once: exactly one succeeds", async () => {
    for (let round = 0; round < 5; round++) {
      const domain = `race${round}.example.net`;
      const results = await Promise.all([
        postgresSsoStore(pg).putUnlessClaimed(client(`prj_race_${round}_a`, [domain])),
        postgresSsoStore(otherPool()).putUnlessClaimed(client(`prj_race_${round}_b`, [domain])),
      ]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const [row] = await pg.sql`SELECT count(*)::int AS n FROM project_sso WHERE allowed_domains LIKE ${`%${domain}%`}`;
      expect(row.n).toBe(1);
    }
  });

  test("an instance's SQLite copy: new and changed clients written, removed ones deleted, nothing when equal", async () => {
    const store = postgresSsoStore(pg);
    const local = projectSsoRepo(db);
    local.put(client("prj_only_local", ["gone.example.net"]));
    local.put({ ...client("prj_claim_a", ["a.example.net"]), issuer: "https://stale.example.com" });
    await mirrorSsoClients(store, local);
    expect(local.all()).toEqual(await store.all());
    expect(local.get("prj_only_local")).toBeNull();
    expect(await mirrorSsoClients(store, local)).toBe(0);
    await store.delete("prj_claim_a");
    expect(await mirrorSsoClients(store, local)).toBe(1);
    expect(local.findByDomain("a.example.net")).toBeNull();
  });
});
