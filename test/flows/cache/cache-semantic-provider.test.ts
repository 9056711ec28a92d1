// GW_SEMANTIC_EMBEDDER=provider (issue 7 item 4): the semantic cache embeds through gw's own
// OpenAI adapter (a scripted upstream here); a vector of the wrong size is a miss, not an error.
// A live key (test keys never reach a live embedder: test/security/keys-test-embed.test.ts) whose
// project answers with its own key on a second upstream, so `up` sees only the embedding calls.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../../helpers/start-gw.ts";
import { ADMIN_TOKEN, post, type TestGw } from "../../helpers/test-gw.ts";

let gw: TestGw;
let up: ScriptedUpstream;
let chatUp: ScriptedUpstream;
let key: string;
let stop: () => Promise<void>;
const DIMS = 1536; // openai/text-embedding-3-small in the catalog

beforeAll(async () => {
  ({ gw, upstreams: { openai: up }, spare: { chatUp }, stop } = await startGw({
    upstreams: { openai: openaiUpstream() }, spare: { chatUp: openaiUpstream() }, env: { GW_SEMANTIC_EMBEDDER: "provider" },
  }));
  const project = gw.newProject("semantic-provider");
  await fetch(`${gw.url}/admin/projects/${project}`, {
    method: "PATCH", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify({ policy: { semantic_cache: true } }),
  });
  await fetch(`${gw.url}/admin/projects/${project}/provider-keys/openai`, {
    method: "PUT", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify({ api_key: "sk-own", base_url: chatUp.url }),
  });
  key = gw.key({ projectId: project, scopes: ["chat"], mode: "live" });
});
afterAll(() => stop());

const vectorReply = (dims: number) => ({ body: { object: "list", model: "text-embedding-3-small", data: [{ object: "embedding", index: 0, embedding: Array.from({ length: dims }, (_, i) => Math.sin(i + 1)) }], usage: { prompt_tokens: 9, total_tokens: 9 } } });

async function ask(content: string): Promise<{ cache: string | null; similarity?: number }> {
  const res = await post(`${gw.url}/chat/completions`, key, { model: "gw-auto", messages: [{ role: "user", content }] });
  expect(res.status).toBe(200);
  await gw.deps.semantic!.settled();
  return ((await res.json()) as { gw: { cache: string | null; similarity?: number } }).gw;
}

test("questions are embedded by the provider's embedding model, and a near vector is a semantic hit", async () => {
  up.script(vectorReply(DIMS), 3); // the lookup and the indexing of the first question, the lookup of the second
  expect((await ask("How do I rotate my deploy token?")).cache).toBeNull();
  const second = await ask("how do I rotate my deploy token?");
  expect(second).toMatchObject({ cache: "semantic", similarity: 1 });
  const calls = up.calls.filter((c) => c.path === "/v1/embeddings");
  expect(calls.length).toBe(3);
  expect((calls[0]!.body as { model: string; input: string[] })).toMatchObject({ model: "text-embedding-3-small", input: ["How do I rotate my deploy token?"] });
});

test("a vector of another size is refused: the lookup misses and the request is served", async () => {
  up.script(vectorReply(8), 2);
  expect((await ask("Where are the build logs kept?")).cache).toBeNull();
});
