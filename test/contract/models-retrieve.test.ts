// GET /models/{id} (docs/api.md "Models"): the list's entry for one profile or model, through the
// openai SDK's models.retrieve (which sends the slash as %2F) and raw; an unknown id is 404 model_not_found.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI, { NotFoundError, PermissionDeniedError } from "openai";
import { get, startTestGw, type TestGw } from "../helpers/test-gw.ts";

type Json = Record<string, unknown>;

let gw: TestGw;
let list: Json[];
let client: OpenAI;

beforeAll(async () => {
  gw = await startTestGw({ OPENAI_API_KEY: "sk-test-not-used" });
  client = new OpenAI({ apiKey: gw.testKey, baseURL: gw.url, maxRetries: 0 });
  list = ((await (await get(`${gw.url}/models`, gw.testKey)).json()) as { data: Json[] }).data;
});
afterAll(() => gw.stop());

describe("GET /models/{id}", () => {
  test("the openai SDK's models.retrieve answers every entry of the list, equal to it", async () => {
    expect(list.length).toBeGreaterThan(30);
    for (const entry of list) {
      const model: Json = { ...(await client.models.retrieve(entry.id as string)) };
      expect(model).toEqual(entry);
    }
  });

  test("ids with one and two slashes, raw or encoded; headers as every answer", async () => {
    for (const id of ["openai/gpt-4o-mini", "groq/openai/gpt-oss-120b", "gw-auto"]) {
      for (const path of [id, encodeURIComponent(id)]) {
        const res = await get(`${gw.url}/models/${path}`, gw.testKey);
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toContain("application/json");
        expect(res.headers.get("x-gw-api-version")).toBe("2026-10-04");
        expect(res.headers.get("x-gw-request-id")).toMatch(/^req_/);
        expect(((await res.json()) as Json).id).toBe(id);
      }
    }
  });

  test("a bare id that names one model answers that model's entry, as chat accepts it", async () => {
    const model: Json = { ...(await client.models.retrieve("gpt-4o-mini")) };
    expect(model).toEqual(list.find((e) => e.id === "openai/gpt-4o-mini") ?? {});
  });

  test("an alias answers its target's entry: a default one, and GW_CONFIG's own, wildcards included", async () => {
    const ada: Json = { ...(await client.models.retrieve("text-embedding-ada-002")) };
    expect(ada).toEqual(list.find((e) => e.id === "openai/text-embedding-3-small") ?? {});
    const dir = mkdtempSync(join(tmpdir(), "gw-models-aliases-"));
    const file = join(dir, "gw.json");
    writeFileSync(file, JSON.stringify({ aliases: { "house-model": "anthropic/claude-haiku-4-5", "team-*": "gw-fast" } }));
    const other = await startTestGw({ GW_CONFIG: file });
    try {
      const sdk = new OpenAI({ apiKey: other.testKey, baseURL: other.url, maxRetries: 0 });
      expect((await sdk.models.retrieve("house-model")).id).toBe("anthropic/claude-haiku-4-5");
      expect((await sdk.models.retrieve("team-anything")).id).toBe("gw-fast");
      expect(await sdk.models.retrieve("house-model-2").catch((e: unknown) => e)).toBeInstanceOf(NotFoundError);
    } finally {
      await other.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("routable follows the key: a live key sees only the enabled provider's models routable", async () => {
    const live = new OpenAI({ apiKey: gw.key({ mode: "live" }), baseURL: gw.url, maxRetries: 0 });
    const routable = async (id: string) => {
      const model: Json = { ...(await live.models.retrieve(id)) };
      return (model.gw as Json).routable;
    };
    expect(await routable("openai/gpt-4o-mini")).toBe(true);
    expect(await routable("anthropic/claude-sonnet-4-5")).toBe(false);
  });

  test("an unknown id: 404 model_not_found in the envelope, through the SDK and raw", async () => {
    const err = await client.models.retrieve("openai/no-such-model").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).error).toMatchObject({ code: "model_not_found", type: "not_found_error", param: "model" });
    for (const path of ["nope", "openai/nope", "%E0%A4%A", "gw-test:fallback"]) {
      const res = await get(`${gw.url}/models/${path}`, gw.testKey);
      expect(res.status).toBe(404);
      expect(res.headers.get("x-gw-api-version")).toBe("2026-10-04");
      const { error } = (await res.json()) as { error: Json };
      expect(error).toMatchObject({ code: "model_not_found", type: "not_found_error", category: "MODEL_NOT_FOUND", param: "model" });
      expect(error.request_id).toBe(res.headers.get("x-gw-request-id"));
    }
  });

  test("the `models` scope: 403 without it, 401 without a key", async () => {
    const noScope = new OpenAI({ apiKey: gw.key({ scopes: ["chat"] }), baseURL: gw.url, maxRetries: 0 });
    expect(await noScope.models.retrieve("gw-auto").catch((e: unknown) => e)).toBeInstanceOf(PermissionDeniedError);
    const res = await get(`${gw.url}/models/gw-auto`, null);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: Json }).error.code).toBe("invalid_api_key");
  });
});
