// The tenant stores' contract (src/store/tenant-store.ts), run against SQLite (today's repos) and
// PostgreSQL: projects and policy, hashed API keys read only within their project, sealed provider keys.
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { secretBox } from "../../../src/lib/secret-box.ts";
import type { ApiKey } from "../../../src/store/repos/api-keys.ts";
import type { ProjectRecord, TenantStores } from "../../../src/store/tenant-store.ts";

export interface TenantHarness {
  stores: TenantStores;
  /** Another instance's stores on the same data (a second pool, a second handle). */
  fresh(): TenantStores;
}

let made = 0;
const unique = (what: string) => `${what}_${process.pid}_${++made}_${Math.random().toString(36).slice(2, 8)}`;
const T0 = Date.UTC(2026, 10, 26, 12);

const project = (over: Partial<ProjectRecord> = {}): ProjectRecord => ({
  id: unique("prj"), name: unique("name"), plan: "pro", billingMode: "postpaid", creditLimit: 12.5,
  policy: { cache: true, pii: "redact", rate_limits: { rpm: 60 } }, createdAt: T0 + made, ...over,
});

const key = (projectId: string, over: Partial<ApiKey> = {}): ApiKey => ({
  id: unique("key"), projectId, name: "ci", keyHash: randomBytes(32).toString("hex"), mode: "live",
  scopes: ["chat", "models"], byok: false, ipAllowlist: null, createdAt: T0 + made, revokedAt: null, ...over,
});

export function tenantContract(name: string, make: () => Promise<TenantHarness>): void {
  describe(`${name}: tenant stores contract`, () => {
    test("projects: create, read, list oldest first, save; an unknown id reads null and saves nothing", async () => {
      const { stores } = await make();
      const a = project({ createdAt: T0 - 2 });
      const b = project({ createdAt: T0 - 1, billingMode: "prepaid", creditLimit: null, plan: "free" });
      expect(await stores.projects.create(a)).toEqual(a);
      await stores.projects.create(b);
      expect(await stores.projects.get(a.id)).toEqual(a);
      expect(await stores.projects.get(b.id)).toEqual(b);
      const ids = (await stores.projects.list()).map((p) => p.id);
      expect(ids.indexOf(a.id)).toBeGreaterThanOrEqual(0);
      expect(ids.indexOf(a.id)).toBeLessThan(ids.indexOf(b.id));
      const renamed = { ...a, name: "renamed", plan: "business" as const, creditLimit: 0.000000001 };
      expect(await stores.projects.save(renamed)).toBe(true);
      expect(await stores.projects.get(a.id)).toEqual(renamed);
      expect(await stores.projects.get("prj_nobody")).toBeNull();
      expect(await stores.projects.save({ ...a, id: "prj_nobody" })).toBe(false);
    });

    test("policy: an update is visible to a fresh read through another instance; save keeps the policy", async () => {
      const { stores, fresh } = await make();
      const p = project();
      await stores.projects.create(p);
      const policy = { semantic_cache: true, budgets: { daily: 5 }, budget_action: "block" as const, allowed_providers: ["openai"] };
      expect(await stores.projects.setPolicy(p.id, policy)).toBe(true);
      const other = fresh();
      expect(await other.projects.getPolicy(p.id)).toEqual(policy);
      expect((await other.projects.get(p.id))?.policy).toEqual(policy);
      expect(await other.projects.save({ ...p, name: "kept policy" })).toBe(true);
      expect(await stores.projects.getPolicy(p.id)).toEqual(policy);
      expect(await stores.projects.getPolicy("prj_nobody")).toBeNull();
      expect(await stores.projects.setPolicy("prj_nobody", policy)).toBe(false);
    });

    test("keys: found by hash; listed without hashes; revoked once; never read or revoked through another project", async () => {
      const { stores, fresh } = await make();
      const mine = project();
      const theirs = project();
      await stores.projects.create(mine);
      await stores.projects.create(theirs);
      const k1 = key(mine.id, { ipAllowlist: ["10.0.0.0/8"], byok: true });
      const k2 = key(mine.id, { createdAt: k1.createdAt + 1, mode: "test" });
      const t1 = key(theirs.id);
      for (const k of [k1, k2, t1]) await stores.keys.create(k);
      expect(await stores.keys.findByHash(k1.keyHash)).toEqual(k1);
      expect(await stores.keys.findByHash("0".repeat(64))).toBeNull();
      expect(await stores.keys.get(mine.id, k1.id)).toEqual(k1);
      const listed = await stores.keys.list(mine.id);
      expect(listed.map((k) => k.id)).toEqual([k1.id, k2.id]);
      expect(listed.every((k) => !("keyHash" in k))).toBe(true);
      const { keyHash: _, ...k2Listed } = k2;
      expect(listed[1]).toEqual(k2Listed);

      // Another project's id reads and revokes nothing.
      expect(await stores.keys.get(theirs.id, k1.id)).toBeNull();
      expect(await stores.keys.revoke(theirs.id, k1.id, T0 + 5)).toBeNull();
      expect((await stores.keys.list(theirs.id)).map((k) => k.id)).toEqual([t1.id]);
      expect((await stores.keys.findByHash(k1.keyHash))?.revokedAt).toBeNull();

      expect(await stores.keys.revoke(mine.id, k1.id, T0 + 10)).toEqual({ ...k1, revokedAt: T0 + 10 });
      // A revoke seen by another instance at once; a second revoke keeps the first time.
      expect((await fresh().keys.findByHash(k1.keyHash))?.revokedAt).toBe(T0 + 10);
      expect((await stores.keys.revoke(mine.id, k1.id, T0 + 20))?.revokedAt).toBe(T0 + 10);
      expect((await stores.keys.get(mine.id, k2.id))?.revokedAt).toBeNull();
    });

    test("provider keys: held sealed, opened by the box that sealed them; replaced per provider; per project", async () => {
      const { stores, fresh } = await make();
      const box = secretBox(randomBytes(32));
      const mine = project();
      const theirs = project();
      await stores.projects.create(mine);
      await stores.projects.create(theirs);
      const sealed = box.seal("sk-live-mine");
      await stores.providerKeys.put({ projectId: mine.id, provider: "openai", sealedKey: sealed, baseUrl: null, updatedAt: T0 });
      await stores.providerKeys.put({ projectId: mine.id, provider: "azure", sealedKey: box.seal("az"), baseUrl: "https://x.openai.azure.com", updatedAt: T0 });
      await stores.providerKeys.put({ projectId: theirs.id, provider: "openai", sealedKey: box.seal("sk-theirs"), baseUrl: null, updatedAt: T0 });

      const listed = await fresh().providerKeys.list(mine.id);
      expect(listed.map((k) => k.provider)).toEqual(["azure", "openai"]);
      expect(listed[1]?.sealedKey).toBe(sealed);
      expect(listed.every((k) => !k.sealedKey.includes("sk-live"))).toBe(true);
      expect(box.open(listed[1]!.sealedKey)).toBe("sk-live-mine");
      expect(listed[0]?.baseUrl).toBe("https://x.openai.azure.com");

      await stores.providerKeys.put({ projectId: mine.id, provider: "openai", sealedKey: box.seal("sk-rotated"), baseUrl: "https://proxy", updatedAt: T0 + 1 });
      const after = (await stores.providerKeys.list(mine.id)).find((k) => k.provider === "openai");
      expect(after && box.open(after.sealedKey)).toBe("sk-rotated");
      expect(after?.updatedAt).toBe(T0 + 1);
      expect(after?.baseUrl).toBe("https://proxy");
      const theirsNow = await stores.providerKeys.list(theirs.id);
      expect(theirsNow.map((k) => box.open(k.sealedKey))).toEqual(["sk-theirs"]);

      const all = (await stores.providerKeys.listAll()).filter((k) => k.projectId === mine.id || k.projectId === theirs.id);
      expect(all).toHaveLength(3);
      expect(await stores.providerKeys.delete(mine.id, "openai")).toBe(true);
      expect(await stores.providerKeys.delete(mine.id, "openai")).toBe(false);
      expect(await stores.providerKeys.delete(mine.id, "azure-not-there")).toBe(false);
      expect((await fresh().providerKeys.list(mine.id)).map((k) => k.provider)).toEqual(["azure"]);
      expect(await stores.providerKeys.list(theirs.id)).toHaveLength(1);
    });
  });
}
