// Azure OpenAI as an option of the OpenAI-compatible base (issue 4 item 2): a catalog model with
// provider `azure-openai` is addressed by deployment URL with api-version and an `api-key` header.
// The fake below answers like Azure; the openai SDK's own AzureOpenAI client, pointed at it, shows
// that gw sends the request the official client sends.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AzureOpenAI } from "openai";
import modelsFile from "../../src/routing/models.json" with { type: "json" };
import { chatCompletionJson, type ChatAnswer } from "../helpers/scripted-upstream-bodies.ts";
import { post, startTestGw, type TestGw } from "../helpers/test-gw.ts";

const AZURE_KEY = "azure-key-0123456789";
const DEPLOYMENT = "prod-gpt4o-mini";
const API_VERSION = "2024-10-21";

interface Seen { path: string; query: URLSearchParams; apiKey: string | null; authorization: string | null; body: Record<string, unknown> }
const seen: Seen[] = [];

const fakeAzure = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const url = new URL(req.url);
    const body = (await req.json()) as Record<string, unknown>;
    seen.push({ path: url.pathname, query: url.searchParams, apiKey: req.headers.get("api-key"), authorization: req.headers.get("authorization"), body });
    if (req.headers.get("api-key") !== AZURE_KEY) {
      return Response.json({ error: { code: "401", message: "Access denied due to invalid subscription key." } }, { status: 401 });
    }
    const answer: ChatAnswer = { id: "chatcmpl-azure", created: 1_760_000_000, model: DEPLOYMENT, content: "Hello from Azure.", toolCalls: null, promptTokens: 11, toolCallIdBase: "call_" };
    return new Response(chatCompletionJson(answer), { headers: { "content-type": "application/json" } });
  },
});
const endpoint = `http://127.0.0.1:${fakeAzure.port}`;

let gw: TestGw;
beforeAll(async () => {
  const base = modelsFile.models.find((m) => m.id === "openai/gpt-4o-mini")!;
  const dir = mkdtempSync(join(tmpdir(), "gw-azure-"));
  const configFile = join(dir, "gw.json");
  writeFileSync(configFile, JSON.stringify({ models: [{ ...base, id: `azure-openai/${DEPLOYMENT}`, provider: "azure-openai", upstream_id: DEPLOYMENT }] }));
  gw = await startTestGw({ AZURE_OPENAI_API_KEY: AZURE_KEY, AZURE_OPENAI_BASE_URL: endpoint, GW_CONFIG: configFile });
});
afterAll(async () => {
  await gw.stop();
  fakeAzure.stop(true);
});

describe("azure-openai (deployment URL, api-version, api-key)", () => {
  test("the openai SDK's AzureOpenAI client and gw send the same request line and key header", async () => {
    seen.length = 0;
    const sdk = new AzureOpenAI({ endpoint, apiKey: AZURE_KEY, apiVersion: API_VERSION, deployment: DEPLOYMENT });
    const direct = await sdk.chat.completions.create({ model: DEPLOYMENT, messages: [{ role: "user", content: "hi" }] });
    expect(direct.choices[0]!.message.content).toBe("Hello from Azure.");

    const res = await post(`${gw.url}/chat/completions`, gw.key({ mode: "live" }), {
      model: `azure-openai/${DEPLOYMENT}`, messages: [{ role: "user", content: "hi" }], metadata: { task: "qa" },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { model: string; choices: Array<{ message: { content: string } }>; gw: { provider: string; cost: number } };
    expect(body.model).toBe(`azure-openai/${DEPLOYMENT}`);
    expect(body.choices[0]!.message.content).toBe("Hello from Azure.");
    expect(body.gw.provider).toBe("azure-openai");
    expect(body.gw.cost).toBeGreaterThan(0);

    const [fromSdk, fromGw] = seen;
    expect(fromGw!.path).toBe(fromSdk!.path);
    expect(fromGw!.path).toBe(`/openai/deployments/${DEPLOYMENT}/chat/completions`);
    expect(fromGw!.query.get("api-version")).toBe(API_VERSION);
    expect(fromSdk!.query.get("api-version")).toBe(API_VERSION);
    expect(fromGw!.apiKey).toBe(AZURE_KEY);
    expect(fromGw!.authorization).toBeNull();
    expect(fromGw!.body.metadata).toBeUndefined();
  });

  test("Azure is off without its endpoint: the model is not routable", async () => {
    const other = await startTestGw({ AZURE_OPENAI_API_KEY: AZURE_KEY });
    try {
      const res = await post(`${other.url}/chat/completions`, other.key({ mode: "live" }), { model: "azure-openai/anything", messages: [{ role: "user", content: "hi" }] });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(600);
      expect(res.status).not.toBe(500);
    } finally {
      await other.stop();
    }
  });
});
