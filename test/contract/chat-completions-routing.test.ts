// Contract tests of POST /chat/completions: model selection (docs/api.md "Models") and
// authentication and scopes (docs/api.md "Authentication").
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ROUTING_PROFILES } from "../../src/config/constants.ts";
import { sha256Hex } from "../../src/lib/hash.ts";
import { ADMIN_TOKEN, startTestGw, type TestGw } from "../helpers/test-gw.ts";
import { chat, expectError, json, requestDetail, user, type Json } from "./chat-helpers.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw();
});
afterAll(() => gw.stop());

async function answered(body: Json): Promise<{ model: string; gw: Json; res: Response }> {
  const res = await chat(gw, body);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${text}`);
  const parsed = JSON.parse(text) as Json;
  return { model: parsed.model as string, gw: parsed.gw as Json, res };
}

const WEATHER_TOOL = {
  type: "function",
  function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
};
const IMAGE_MESSAGE = {
  role: "user",
  content: [
    { type: "text", text: "What is in this picture?" },
    { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
  ],
};

describe('model selection (docs/api.md "Models")', () => {
  test("an unknown model id answers 404 model_not_found naming param model", async () => {
    await expectError(await chat(gw, { model: "acme/unknown-model-9", messages: user("hi") }), 404, "model_not_found", {
      type: "not_found_error", category: "MODEL_NOT_FOUND", param: "model",
    });
  });

  test("an explicit model id is honoured in test mode", async () => {
    for (const id of ["anthropic/claude-sonnet-4-5", "google/gemini-2.5-flash", "mistral/mistral-small-latest"]) {
      const { model, gw: g, res } = await answered({ model: id, messages: user("Which model are you?") });
      expect(model).toBe(id);
      expect(g.selected_model).toBe(id);
      expect(g.provider).toBe("sandbox");
      expect(res.headers.get("x-gw-model")).toBe(id);
      // An explicit model is its own baseline: nothing is saved against itself.
      expect(g.saved).toBe(0);
    }
  });

  test("a bare unambiguous upstream id resolves to its catalog entry", async () => {
    const { model, gw: g } = await answered({ model: "gpt-4o-mini", messages: user("Bare id.") });
    expect(model).toBe("openai/gpt-4o-mini");
    expect(g.selected_model).toBe("openai/gpt-4o-mini");
    const detail = await requestDetail(gw, g.request_id as string);
    expect(detail.requested_model).toBe("gpt-4o-mini");
    expect(detail.selected_model).toBe("openai/gpt-4o-mini");
  });

  for (const profile of ROUTING_PROFILES) {
    test(`profile ${profile} answers with its top-scored model, and the trace says why`, async () => {
      const { model, gw: g } = await answered({ model: profile, messages: user(`Route me through ${profile}.`) });
      expect(g.selected_model).toBe(model);
      const detail = await requestDetail(gw, g.request_id as string);
      expect(detail.requested_model).toBe(profile);
      expect(detail.selected_model).toBe(model);
      const trace = detail.trace as unknown as {
        profile: string; required_quality: number; weights: { quality: number; cost: number; latency: number };
        candidates: Array<{ model: string; rank: number | null; score?: number }>; reason: string; expected: { cost: number };
      };
      expect(trace.profile).toBe(profile);
      expect(trace.candidates[0]).toMatchObject({ model, rank: 0 });
      expect(trace.candidates[0]!.score).toBeGreaterThan(0);
      expect(trace.weights.quality + trace.weights.cost + trace.weights.latency).toBeCloseTo(1, 2);
      expect(trace.required_quality).toBeGreaterThan(0);
      expect(trace.reason.length).toBeGreaterThan(0);
      expect(trace.expected.cost).toBeGreaterThan(0);
    });
  }

  test("no model given means gw-auto", async () => {
    const { model, gw: g } = await answered({ messages: user("Default profile.") });
    const detail = await requestDetail(gw, g.request_id as string);
    expect(detail.requested_model).toBe("gw-auto");
    expect((detail.trace as unknown as { profile: string }).profile).toBe("gw-auto");
    expect(detail.selected_model).toBe(model);
  });

  test("an embedding model on chat answers 400 invalid_request naming param model", async () => {
    for (const id of ["openai/text-embedding-3-small", "text-embedding-3-small"]) {
      await expectError(await chat(gw, { model: id, messages: user("embed?") }), 400, "invalid_request", { param: "model" });
    }
  });

  test("max_cost below every model's worst case answers 503 no_model_available", async () => {
    const res = await chat(gw, { model: "gw-auto", messages: user("cheap please"), max_cost: 0.0000001 });
    const err = await expectError(res, 503, "no_model_available", { type: "api_error", category: "NO_MODEL_AVAILABLE" });
    const detail = await requestDetail(gw, err.request_id as string);
    expect(detail.status).toBe(503);
    const candidates = (detail.trace as { candidates: Array<{ excluded?: string }> }).candidates;
    expect(candidates.length).toBeGreaterThan(0);
    expect(candidates.every((c) => typeof c.excluded === "string" && c.excluded.includes("max_cost"))).toBe(true);
  });

  test("a generous max_cost still answers", async () => {
    const { gw: g } = await answered({ model: "gw-auto", messages: user("cheap enough"), max_cost: 5, max_tokens: 50 });
    expect(g.cost as number).toBeLessThanOrEqual(5);
  });

  test("tools with an explicit model that has no tool support answer 503 no_model_available (param model)", async () => {
    const res = await chat(gw, { model: "deepseek/deepseek-reasoner", messages: user("Use get_weather."), tools: [WEATHER_TOOL] });
    await expectError(res, 503, "no_model_available", { param: "model", category: "NO_MODEL_AVAILABLE" });
    // The same model without tools is fine.
    const { model } = await answered({ model: "deepseek/deepseek-reasoner", messages: user("No tools.") });
    expect(model).toBe("deepseek/deepseek-reasoner");
  });

  test("tools on a profile skip the models without tool support", async () => {
    // gw-reasoning lists deepseek/deepseek-reasoner, which has no tools; whatever answers must have them.
    const { model, gw: g } = await answered({ model: "gw-reasoning", messages: user("Use get_weather."), tools: [WEATHER_TOOL] });
    expect(model).not.toBe("deepseek/deepseek-reasoner");
    const detail = await requestDetail(gw, g.request_id as string);
    const candidates = (detail.trace as { candidates: Array<{ model: string; excluded?: string; rank: number | null }> }).candidates;
    const reasoner = candidates.find((c) => c.model === "deepseek/deepseek-reasoner")!;
    expect(reasoner.rank).toBeNull();
    expect(reasoner.excluded).toContain("tool");
  });

  test("an image part routes to a vision-capable model", async () => {
    // gw-fast prefers groq/llama-3.1-8b-instant, which has no vision.
    const plain = await answered({ model: "gw-fast", messages: user("No picture here.") });
    expect(plain.model).toBe("groq/llama-3.1-8b-instant");
    const { model } = await answered({ model: "gw-fast", messages: [IMAGE_MESSAGE] });
    const visionModels = new Set(gw.deps.catalog.models.filter((m) => m.capabilities.vision).map((m) => m.id));
    expect(visionModels.has(model)).toBe(true);
    expect(model).not.toBe("groq/llama-3.1-8b-instant");
  });

  test("an image part on an explicit model without vision answers 503 no_model_available", async () => {
    const res = await chat(gw, { model: "groq/llama-3.1-8b-instant", messages: [IMAGE_MESSAGE] });
    await expectError(res, 503, "no_model_available", { param: "model" });
  });
});

describe('authentication and scopes (docs/api.md "Authentication")', () => {
  const body = { messages: user("auth?") };
  const auth401 = { type: "authentication_error", category: "AUTHENTICATION", param: null } as const;

  test("a missing Authorization header answers 401 invalid_api_key", async () => {
    await expectError(await chat(gw, body, {}, null), 401, "invalid_api_key", auth401);
  });

  test("a malformed Authorization header answers 401 invalid_api_key", async () => {
    for (const header of [`Basic ${gw.testKey}`, gw.testKey, "Bearer", "bearer"]) {
      await expectError(await chat(gw, body, { authorization: header }, null), 401, "invalid_api_key", auth401);
    }
  });

  test("a malformed key answers 401 invalid_api_key", async () => {
    for (const key of ["sk-123", "gw_prod_abc", "gw_test_short", `${gw.testKey}x`, gw.testKey.toUpperCase()]) {
      await expectError(await chat(gw, body, {}, key), 401, "invalid_api_key", auth401);
    }
  });

  test("an unknown well-formed key answers 401 invalid_api_key", async () => {
    const unknown = `gw_test_${"a".repeat(40)}`;
    await expectError(await chat(gw, body, {}, unknown), 401, "invalid_api_key", auth401);
    await expectError(await chat(gw, body, {}, `gw_live_${"b".repeat(40)}`), 401, "invalid_api_key", auth401);
  });

  test("a key revoked through the admin API answers 401 invalid_api_key from then on", async () => {
    const key = gw.key();
    // The first call also puts the key in gw's short-lived auth cache; revocation must beat it.
    expect((await chat(gw, body, {}, key)).status).toBe(200);
    const stored = gw.deps.repos.apiKeys.findByHash(sha256Hex(key));
    expect(stored).not.toBeNull();
    const res = await fetch(`${gw.url}/admin/keys/${stored!.id}`, { method: "DELETE", headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.status).toBe(200);
    await expectError(await chat(gw, body, {}, key), 401, "invalid_api_key", auth401);
  });

  test("a key revoked in the store by another process answers 401 once the auth cache entry expires", async () => {
    const key = gw.key();
    expect((await chat(gw, body, {}, key)).status).toBe(200);
    gw.deps.repos.apiKeys.revoke(gw.deps.repos.apiKeys.findByHash(sha256Hex(key))!.id, Date.now());
    // Simulates the TTL passing (docs/decisions.md: CLI changes apply within 2 s).
    gw.deps.authCache.clear();
    await expectError(await chat(gw, body, {}, key), 401, "invalid_api_key", auth401);
  });

  test("a key without the chat scope answers 403 permission_denied", async () => {
    const key = gw.key({ scopes: ["models"] });
    await expectError(await chat(gw, body, {}, key), 403, "permission_denied", {
      type: "permission_error", category: "PERMISSION_DENIED",
    });
  });

  test("a key with default scopes (no requests scope) may chat", async () => {
    const res = await chat(gw, body, {}, gw.key());
    expect(res.status).toBe(200);
    expect(((await json(res)).gw as Json).test).toBe(true);
  });
});
