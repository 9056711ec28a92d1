// GET /models (docs/api.md "Models"): the routing profiles, then every catalog
// model with its gw fields, in one page. `routable` follows the key's mode and the enabled providers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { get, startTestGw, type TestGw } from "../helpers/test-gw.ts";

type Json = Record<string, unknown>;
interface ModelList {
  object: string;
  data: Json[];
  has_more: boolean;
}

const PROFILES = ["gw-auto", "gw-fast", "gw-balanced", "gw-quality", "gw-max", "gw-reasoning", "gw-code"];

/** docs/api.md "Models": the gw object of a real model. */
const REAL_GW_FIELDS: Record<string, (v: unknown) => boolean> = {
  name: (v) => typeof v === "string" && v.length > 0,
  input_price: (v) => typeof v === "number" && Number.isFinite(v) && v >= 0,
  output_price: (v) => typeof v === "number" && Number.isFinite(v) && v >= 0,
  context_window: (v) => typeof v === "number" && Number.isInteger(v) && v > 0,
  tools: (v) => typeof v === "boolean",
  vision: (v) => typeof v === "boolean",
  json: (v) => typeof v === "boolean",
  reasoning: (v) => typeof v === "boolean",
  embeddings: (v) => typeof v === "boolean",
  quality: (v) => typeof v === "number" && Number.isFinite(v),
  routable: (v) => typeof v === "boolean",
};

async function models(gw: TestGw, key: string): Promise<ModelList> {
  const res = await get(`${gw.url}/models`, key);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/json");
  expect(res.headers.get("x-gw-api-version")).toBe("2026-10-04");
  return (await res.json()) as ModelList;
}

const realModels = (list: ModelList) => list.data.filter((m) => !PROFILES.includes(m.id as string));
const gwOf = (m: Json) => m.gw as Json;

describe('GET /models (docs/api.md "Models")', () => {
  let gw: TestGw;
  let list: ModelList;

  beforeAll(async () => {
    gw = await startTestGw();
    list = await models(gw, gw.testKey);
  });
  afterAll(() => gw.stop());

  test("a list in one page", () => {
    expect(list.object).toBe("list");
    expect(list.has_more).toBe(false);
    expect(Array.isArray(list.data)).toBe(true);
  });

  test("the seven routing profiles come first, virtual, created 0", () => {
    const first = list.data.slice(0, PROFILES.length);
    expect(first.map((m) => m.id).sort()).toEqual([...PROFILES].sort());
    for (const p of first) {
      expect(p.object).toBe("model");
      expect(typeof p.owned_by).toBe("string");
      expect(p.created).toBe(0);
      expect(p.gw).toEqual({ virtual: true });
    }
    // No profile appears again further down.
    expect(list.data.filter((m) => PROFILES.includes(m.id as string))).toHaveLength(PROFILES.length);
  });

  test("every real model: `<provider>/<model>` id and every gw field of 2.6 with its type", () => {
    const real = realModels(list);
    expect(real.length).toBe(list.data.length - PROFILES.length);
    for (const m of real) {
      expect(m.id).toMatch(/^[a-z0-9-]+\/\S+$/);
      expect(m.object).toBe("model");
      expect(typeof m.owned_by).toBe("string");
      expect((m.owned_by as string).length).toBeGreaterThan(0);
      // Epoch seconds: after 2015, and not milliseconds.
      expect(Number.isInteger(m.created)).toBe(true);
      expect(m.created as number).toBeGreaterThan(1_420_000_000);
      expect(m.created as number).toBeLessThan(Date.now() / 1000 + 86_400);
      const g = gwOf(m);
      for (const [field, check] of Object.entries(REAL_GW_FIELDS)) {
        if (!check(g[field])) throw new Error(`${m.id}: gw.${field} = ${JSON.stringify(g[field])}`);
      }
      expect(g.virtual).toBeUndefined();
    }
    expect(new Set(real.map((m) => m.id)).size).toBe(real.length);
  });

  test('at least 30 real models from at least 8 providers, gpt-4o-mini, claude-sonnet-4-5 and gemini-2.5-flash among them', () => {
    const real = realModels(list);
    expect(real.length).toBeGreaterThanOrEqual(30);
    const providers = new Set(real.map((m) => (m.id as string).split("/")[0]));
    expect(providers.size).toBeGreaterThanOrEqual(8);
    const idsOf = real.map((m) => m.id);
    for (const id of ["openai/gpt-4o-mini", "anthropic/claude-sonnet-4-5", "google/gemini-2.5-flash"]) expect(idsOf).toContain(id);
    // Embedding models are listed and flagged.
    expect(real.some((m) => gwOf(m).embeddings === true)).toBe(true);
  });

  test('a test key: every model is routable (docs/api.md "Models")', () => {
    for (const m of realModels(list)) expect(gwOf(m).routable).toBe(true);
  });

  test("a live key with no provider enabled: no model is routable", async () => {
    const live = await models(gw, gw.key({ mode: "live" }));
    expect(live.data.slice(0, PROFILES.length)).toEqual(list.data.slice(0, PROFILES.length));
    for (const m of realModels(live)) expect(gwOf(m).routable).toBe(false);
    // Same entries otherwise.
    expect(realModels(live).map((m) => m.id)).toEqual(realModels(list).map((m) => m.id));
  });

  test("a key without the `models` scope: 403 permission_denied; no key: 401", async () => {
    const res = await get(`${gw.url}/models`, gw.key({ scopes: ["chat"] }));
    expect(res.status).toBe(403);
    const { error } = (await res.json()) as { error: Json };
    expect(error).toMatchObject({ code: "permission_denied", type: "permission_error" });
    const anonymous = await get(`${gw.url}/models`, null);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: Json }).error.code).toBe("invalid_api_key");
  });
});

describe('GET /models with a provider enabled (docs/api.md "Models")', () => {
  let gw: TestGw;
  afterAll(() => gw.stop());

  test("a live key: exactly the enabled provider's models are routable", async () => {
    gw = await startTestGw({ OPENAI_API_KEY: "sk-test-not-used" });
    const live = await models(gw, gw.key({ mode: "live" }));
    const real = realModels(live);
    expect(real.some((m) => (m.id as string).startsWith("openai/"))).toBe(true);
    for (const m of real) expect(gwOf(m).routable).toBe((m.id as string).startsWith("openai/"));
  });
});
