// The SSO clients' store contract (src/store/repos/project-sso.ts ProjectSsoStore), run against the
// SQLite repo and PostgreSQL: one client per project, replaced whole, found by any allowed domain
// (case aside, oldest first), deleted once, and seen the same through another handle.
import { describe, expect, test } from "bun:test";
import type { ProjectSsoStore, StoredSso } from "../../../src/store/repos/project-sso.ts";

export interface ProjectSsoHarness {
  store: ProjectSsoStore;
  /** Another instance's store on the same data (a second pool, a second handle). */
  fresh(): ProjectSsoStore;
}

let made = 0;
const unique = (what: string) => `${what}${process.pid}x${++made}x${Math.random().toString(36).slice(2, 8)}`;
const T0 = Date.UTC(2026, 10, 26, 12);

const client = (over: Partial<StoredSso> = {}): StoredSso => ({
  projectId: unique("prj_"), issuer: "https://idp.example.com", clientId: unique("client"), sealedSecret: "v1.c2VhbGVk",
  allowedDomains: [`${unique("d")}.example.com`], createdAt: T0 + made, updatedAt: T0 + made, ...over,
});

export function projectSsoContract(name: string, make: () => Promise<ProjectSsoHarness>): void {
  describe(`${name}: project SSO store contract`, () => {
    test("put, read through another handle, replace whole keeping the creation time; an unknown project reads null", async () => {
      const { store, fresh } = await make();
      const a = client();
      await store.put(a);
      expect(await store.get(a.projectId)).toEqual(a);
      expect(await fresh().get(a.projectId)).toEqual(a);
      const replaced = { ...a, issuer: "https://other.example.com", clientId: "c2", sealedSecret: "v1.b3RoZXI", allowedDomains: ["corp.example.org"], createdAt: a.createdAt + 99, updatedAt: a.updatedAt + 5 };
      await fresh().put(replaced);
      expect(await store.get(a.projectId)).toEqual({ ...replaced, createdAt: a.createdAt });
      expect(await store.get(unique("prj_"))).toBeNull();
    });

    test("found by any allowed domain, whatever its case; the oldest client when two claim it; listed oldest first", async () => {
      const { store, fresh } = await make();
      const domain = `${unique("shared")}.example.com`;
      const older = client({ allowedDomains: [`${unique("x")}.example.com`, domain], createdAt: T0 - 10 });
      const newer = client({ allowedDomains: [domain], createdAt: T0 - 5 });
      await store.put(newer);
      await store.put(older);
      expect((await fresh().findByDomain(domain.toUpperCase()))?.projectId).toBe(older.projectId);
      expect((await store.findByDomain(older.allowedDomains[0]!))?.projectId).toBe(older.projectId);
      expect(await store.findByDomain(`${unique("none")}.example.com`)).toBeNull();
      const ids = (await fresh().all()).map((s) => s.projectId);
      expect(ids.indexOf(older.projectId)).toBeLessThan(ids.indexOf(newer.projectId));
      expect(ids.indexOf(older.projectId)).toBeGreaterThanOrEqual(0);
    });

    test("delete once: true, then false; the client is gone for every handle and every domain", async () => {
      const { store, fresh } = await make();
      const a = client();
      await store.put(a);
      expect(await fresh().delete(a.projectId)).toBe(true);
      expect(await store.delete(a.projectId)).toBe(false);
      expect(await store.get(a.projectId)).toBeNull();
      expect(await store.findByDomain(a.allowedDomains[0]!)).toBeNull();
      expect((await store.all()).some((s) => s.projectId === a.projectId)).toBe(false);
    });
  });
}
