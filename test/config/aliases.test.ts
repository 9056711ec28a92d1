// Aliases (docs/config.md "Aliases"): the ids popular clients send by default and the operator's
// own (exact and wildcard) answer as their target; the request log keeps the id that was sent.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp, type App } from "../../src/http/app.ts";
import { catalogFromConfig } from "../../src/deps.ts";
import { buildCatalog } from "../../src/routing/catalog.ts";
import { DEFAULT_ALIASES } from "../../src/routing/aliases.ts";
import { startTestGw, type TestGw } from "../helpers/test-gw.ts";

const dir = mkdtempSync(join(tmpdir(), "gw-aliases-"));
let n = 0;
const file = (content: unknown): string => {
  const path = join(dir, `gw-${n++}.json`);
  writeFileSync(path, JSON.stringify(content));
  return path;
};

let gw: TestGw;
let app: App;
beforeAll(async () => {
  gw = await startTestGw({ GW_CONFIG: file({ aliases: {
    "my-embedder": "openai/text-embedding-3-large", "company-chat": "anthropic/claude-haiku-4-5", "gpt-*": "gw-auto", "claude-*-fast": "gw-fast",
  } }) });
  app = createApp(gw.deps);
});
afterAll(async () => {
  await gw.stop();
  rmSync(dir, { recursive: true, force: true });
});

const call = (path: string, body: unknown) => app.handle(new Request(`http://localhost/v1${path}`, {
  method: "POST", headers: { authorization: `Bearer ${gw.testKey}`, "content-type": "application/json" }, body: JSON.stringify(body),
}));
const chat = (model: string) => call("/chat/completions", { model, messages: [{ role: "user", content: "hi" }] });

async function logged(requestId: string | null): Promise<{ requested_model: string; selected_model: string }> {
  await gw.drain();
  const res = await app.handle(new Request(`http://localhost/v1/requests/${requestId}`, { headers: { authorization: `Bearer ${gw.testKey}` } }));
  expect(res.status).toBe(200);
  return (await res.json()) as { requested_model: string; selected_model: string };
}

describe("through app.handle", () => {
  test("LlamaIndex's default embedding id embeds with openai/text-embedding-3-small and is logged as sent", async () => {
    const res = await call("/embeddings", { model: "text-embedding-ada-002", input: "hello" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { model: string; data: unknown[] };
    expect(body.data.length).toBe(1);
    const row = await logged(res.headers.get("x-gw-request-id"));
    expect([row.requested_model, row.selected_model]).toEqual(["text-embedding-ada-002", "openai/text-embedding-3-small"]);
  });

  test("the OpenAI Agents SDK's default model answers; an operator's exact alias for embeddings and chat too", async () => {
    const agents = await chat("gpt-5.4-mini");
    expect(agents.status).toBe(200);
    expect((await logged(agents.headers.get("x-gw-request-id"))).selected_model).toBe("openai/gpt-5-mini");
    const company = await chat("company-chat");
    expect(company.status).toBe(200);
    expect(await logged(company.headers.get("x-gw-request-id"))).toMatchObject({ requested_model: "company-chat", selected_model: "anthropic/claude-haiku-4-5" });
    expect((await call("/embeddings", { model: "my-embedder", input: ["a", "b"] })).status).toBe(200);
    const claude = await chat("claude-sonnet-4-5-20250929");
    expect(claude.status).toBe(200);
    expect((await logged(claude.headers.get("x-gw-request-id"))).selected_model).toBe("anthropic/claude-sonnet-4-5");
  });

  test("a wildcard routes unknown ids to a profile; known ids are never wildcarded", async () => {
    const unknown = await chat("gpt-7-turbo");
    expect(unknown.status).toBe(200);
    expect((await logged(unknown.headers.get("x-gw-request-id"))).requested_model).toBe("gpt-7-turbo");
    expect(gw.deps.catalog.routed("gpt-7-turbo")).toBe("gw-auto");
    expect(gw.deps.catalog.routed("claude-x-fast")).toBe("gw-fast");
    // A catalog bare id, a profile and a test model match "gpt-*" but stay themselves.
    for (const known of ["gpt-4o", "openai/gpt-4o", "gw-cheap", "gw-test:ok"]) expect(gw.deps.catalog.routed(known)).toBe(known);
    const known = await chat("gpt-4o");
    expect((await logged(known.headers.get("x-gw-request-id"))).selected_model).toBe("openai/gpt-4o");
  });

  test("an id that is neither known nor aliased is still 404", async () => {
    const res = await chat("llama-nonexistent");
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("model_not_found");
  });
});

describe("building aliases", () => {
  test("every built-in alias names a catalog model, and none shadows a catalog id", () => {
    const catalog = buildCatalog();
    for (const [name, target] of Object.entries(DEFAULT_ALIASES)) {
      expect(catalog.resolve(name)).toBeUndefined();
      expect(catalog.routed(name)).toBe(catalog.resolve(target)!.id);
    }
  });

  test("the most specific wildcard wins; an operator alias may redirect a catalog id", () => {
    const catalog = buildCatalog(undefined, [], { "gpt-*": "gw-auto", "gpt-9*": "gw-fast", "gpt-4o": "openai/gpt-4o-mini" });
    expect(catalog.routed("gpt-9x")).toBe("gw-fast");
    expect(catalog.routed("gpt-8")).toBe("gw-auto");
    expect(catalog.routed("gpt-4o")).toBe("openai/gpt-4o-mini");
  });

  test("bad aliases are refused naming the file and the alias", () => {
    const target = file({ aliases: { "my-model": "openai/gpt-99" } });
    expect(() => catalogFromConfig(target)).toThrow(
      `GW_CONFIG ${target}: aliases["my-model"]: expected a catalog model id or a routing profile (gw-auto, gw-fast...), got "openai/gpt-99"`,
    );
    const stars = file({ aliases: { "*-*": "gw-auto" } });
    expect(() => catalogFromConfig(stars)).toThrow(`GW_CONFIG ${stars}: aliases["*-*"]: expected at most one "*" in an alias`);
  });
});
