// The semantic cache through the real server (docs/semantic-cache.md; issue 7 item 4), with the
// model-free n-gram embedder so the test is fast and exact; the sentence model has its own tests
// (test/cache) and the binary check. Eligibility, the literal guard, partitions, thresholds,
// invalidation reaching the index, and the index surviving a restart.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_TOKEN, post, startTestGw, type TestGw } from "../../helpers/test-gw.ts";

let gw: TestGw;
let key: string;
let project: string;

beforeAll(async () => {
  gw = await startTestGw({ GW_SEMANTIC_EMBEDDER: "ngram" });
  project = gw.newProject("semantic");
  await setPolicy(project, { semantic_cache: true, semantic_threshold: 0.6 });
  key = gw.key({ projectId: project, scopes: ["chat", "requests", "cache"] });
});
afterAll(() => gw.stop());

function setPolicy(id: string, policy: Record<string, unknown>) {
  return fetch(`${gw.url}/admin/projects/${id}`, {
    method: "PATCH", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify({ policy }),
  });
}

interface Answer { choices: Array<{ message: { content: string } }>; gw: { cache: string | null; similarity?: number; request_id: string; cost: number } }
async function ask(content: string, extra: Record<string, unknown> = {}, k = key): Promise<Answer> {
  const res = await post(`${gw.url}/chat/completions`, k, { model: "gw-auto", messages: [{ role: "user", content }], ...extra });
  expect(res.status).toBe(200);
  const answer = (await res.json()) as Answer;
  await gw.deps.semantic!.settled(); // indexing runs off the request path
  return answer;
}
async function cacheTrace(id: string): Promise<Record<string, unknown>> {
  await gw.drain();
  const res = await fetch(`${gw.url}/requests/${id}`, { headers: { authorization: `Bearer ${key}` } });
  return ((await res.json()) as { trace: { cache: Record<string, unknown> } }).trace.cache;
}

describe("semantic hits", () => {
  test("the same question in other words is answered from the cache with gw.similarity", async () => {
    const first = await ask("How do I install the command line tool on Linux?");
    const second = await ask("How can I install the command line tool on Linux?");
    expect(second.gw.cache).toBe("semantic");
    expect(second.gw.similarity).toBeGreaterThan(0.6);
    expect(second.gw.similarity).toBeLessThan(1);
    expect(second.gw.cost).toBe(0);
    expect(second.choices[0]!.message.content).toBe(first.choices[0]!.message.content);
    expect(await cacheTrace(second.gw.request_id)).toMatchObject({ result: "hit", kind: "semantic" });
  });

  test("a question that differs in a number, a name or a negation is never a hit", async () => {
    await ask("How many moons does Jupiter have in 2021?");
    const year = await ask("How many moons does Jupiter have in 2023?");
    expect(year.gw.cache).toBeNull();
    expect(await cacheTrace(year.gw.request_id)).toMatchObject({ miss_reason: "semantic_literal_mismatch:numbers" });
    await ask("Can I use the export feature with Python?");
    expect((await ask("Can I not use the export feature with Python?")).gw.cache).toBeNull();
    await ask("Who founded the company Acme Robotics?");
    expect((await ask("Who founded the company Zenith Robotics?")).gw.cache).toBeNull();
  });

  test("below the threshold is a miss that reports the nearest similarity", async () => {
    await ask("What are the opening steps of a chess game?");
    const other = await ask("Explain the rules of basketball briefly.");
    expect(other.gw.cache).toBeNull();
  });
});

describe("eligibility and partitions", () => {
  test("only a single short question: a conversation, a response_format, or a long text is exact-only", async () => {
    const conversation = { messages: [{ role: "user", content: "Hi" }, { role: "assistant", content: "Hello!" }, { role: "user", content: "What is an API gateway used for?" }] };
    const r = await post(`${gw.url}/chat/completions`, key, { model: "gw-auto", ...conversation });
    const id = ((await r.json()) as Answer).gw.request_id;
    expect(await cacheTrace(id)).toMatchObject({ semantic: { eligible: false, reason: "not_a_single_question" } });
    const json = await ask("Give me a JSON object with a greeting.", { response_format: { type: "json_object" } });
    expect(await cacheTrace(json.gw.request_id)).toMatchObject({ semantic: { eligible: false, reason: "response_format" } });
    const long = await ask(`Please explain this text: ${"lorem ipsum dolor sit amet ".repeat(120)}`);
    expect(await cacheTrace(long.gw.request_id)).toMatchObject({ semantic: { eligible: false, reason: "too_long" } });
  });

  test("another system prompt, user or project is another partition", async () => {
    await ask("How do I rotate an API key safely?", { messages: [{ role: "system", content: "You are terse." }, { role: "user", content: "How do I rotate an API key safely?" }] });
    const otherSystem = await ask("How can I rotate an API key safely?", { messages: [{ role: "system", content: "You are verbose." }, { role: "user", content: "How can I rotate an API key safely?" }] });
    expect(otherSystem.gw.cache).toBeNull();
    await ask("What does a load balancer do?", { user: "alice" });
    expect((await ask("What does a load balancer actually do?", { user: "bob" })).gw.cache).toBeNull();
    expect((await ask("What does a load balancer actually do?", { user: "alice" })).gw.cache).toBe("semantic");
  });

  test("a project without semantic_cache gets exact hits only", async () => {
    const plain = gw.key({ scopes: ["chat"] });
    await ask("How do I install the command line tool on Windows?", {}, plain);
    expect((await ask("How can I install the command line tool on Windows?", {}, plain)).gw.cache).toBeNull();
  });
});

describe("an index or embedder outage is a miss", () => {
  test("a failing semantic lookup: the request is served, trace.cache says semantic_unavailable", async () => {
    const semantic = gw.deps.semantic!;
    const search = semantic.search.bind(semantic);
    semantic.search = () => Promise.reject(new Error("embedder crashed"));
    try {
      const a = await ask("What is the difference between TCP and UDP?");
      expect(a.gw.cache).toBeNull();
      expect(await cacheTrace(a.gw.request_id)).toMatchObject({ result: "miss", miss_reason: "semantic_unavailable" });
    } finally {
      semantic.search = search;
    }
  });
});

describe("the index follows the store", () => {
  test("invalidation removes answers from semantic lookups too", async () => {
    await ask("How do I configure the proxy for staging?", { cache: { tags: ["staging-docs"] } });
    const res = await post(`${gw.url}/cache/invalidate`, key, { tags: ["staging-docs"] });
    expect(((await res.json()) as { deleted: number }).deleted).toBe(1);
    expect((await ask("How can I configure the proxy for staging?")).gw.cache).toBeNull();
  });

  test("the saved index serves after a restart over the same data directory", async () => {
    const { loadConfig } = await import("../../../src/config/env.ts");
    const { buildDeps } = await import("../../../src/deps.ts");
    const { createLogger } = await import("../../../src/observability/logger.ts");
    await ask("How do I export the audit log as CSV?");
    await gw.deps.semantic!.close();
    await gw.deps.answers.flushed();
    const config = loadConfig({ port: "0", data: gw.dataDir }, { GW_SEMANTIC_EMBEDDER: "ngram" });
    const again = buildDeps(config, { logger: createLogger("silent") });
    try {
      const near = await again.semantic!.search(project, (await lastPartition()), "How can I export the audit log as CSV?");
      expect(near.length).toBeGreaterThan(0);
      expect(near[0]!.similarity).toBeGreaterThan(0.6);
    } finally {
      await again.semantic!.close();
      again.answers.close();
      await again.logSink.close();
    }
  });
});

async function lastPartition(): Promise<string> {
  for (const e of gw.deps.answers.semanticEntries()) if (e.question === "How do I export the audit log as CSV?") return e.partition;
  throw new Error("entry not found");
}
