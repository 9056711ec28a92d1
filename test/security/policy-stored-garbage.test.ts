// A policy written straight into the database (not through the admin API) with a bad entry in a
// restriction list still restricts: the list fails closed, it is not dropped (docs/security.md).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { policyFrom } from "../../src/schema/admin.ts";
import { post, startTestGw, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw();
});
afterAll(() => gw.stop());

function storePolicy(policy: unknown): void {
  gw.deps.db.run("UPDATE projects SET policy = ? WHERE id = ?", [JSON.stringify(policy), gw.projectId]);
  gw.deps.authCache.clear();
}

const ask = () => post(`${gw.url}/chat/completions`, gw.testKey, { model: "gw-auto", messages: [{ role: "user", content: "hi" }] });

describe("stored policy with bad entries", () => {
  test("policyFrom keeps a restriction list with a bad entry as a list that matches nothing more", () => {
    const p = policyFrom({ ip_allowlist: ["10.0.0.0/8", 5], allowed_providers: ["openai", null], regions: [""], cache_ttl: "x" });
    expect(p.ip_allowlist).toEqual(["10.0.0.0/8", "(invalid)"]);
    expect(p.allowed_providers).toEqual(["openai", "(invalid)"]);
    expect(p.regions).toEqual(["(invalid)"]);
    expect(p.cache_ttl).toBeUndefined();
  });

  test("a budget or rate limit with one bad part keeps the parts that fit", () => {
    const p = policyFrom({ budgets: { daily: 5, monthly: "x" }, rate_limits: { rpm: 10, tpm: -1, per_key: { rpm: 2, tpm: "y" } } });
    expect(p.budgets).toEqual({ daily: 5 });
    expect(p.rate_limits).toEqual({ rpm: 10, per_key: { rpm: 2 } });
  });

  test("an ip_allowlist of nothing but garbage refuses the caller instead of admitting everyone", async () => {
    storePolicy({ ip_allowlist: [42] });
    const res = await ask();
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("permission_denied");
    storePolicy({});
    expect((await ask()).status).toBe(200);
  });
});
