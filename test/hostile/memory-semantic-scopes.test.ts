// Hostile input, memory (issue 14 item 3, docs/semantic-cache.md "Memory"): a flood of distinct
// `user`s and X-Gw-Cache-Scopes on a semantic-cache project, through the real server with small
// caps. The index stays within its caps (sizes asserted, not RSS), a recent scope still gets its
// semantic hit, an evicted one misses, no scope is ever answered from another's entry, and a light
// request is answered while the flood is still running.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ADMIN_TOKEN, get, post, startTestGw, type TestGw } from "../helpers/test-gw.ts";

const TOTAL_MB = 0.25;
const PROJECT_MB = 0.125;
const FLOOD = 600;
let gw: TestGw;
let keyA: string;
let keyB: string;
let projectA: string;

async function semanticProject(name: string): Promise<string> {
  const id = gw.newProject(name);
  const res = await fetch(`${gw.url}/admin/projects/${id}`, {
    method: "PATCH", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ policy: { semantic_cache: true, semantic_threshold: 0.6 } }),
  });
  expect(res.status).toBe(200);
  return id;
}

beforeAll(async () => {
  gw = await startTestGw({ GW_SEMANTIC_EMBEDDER: "ngram", GW_SEMANTIC_INDEX_MB: String(TOTAL_MB), GW_SEMANTIC_INDEX_PROJECT_MB: String(PROJECT_MB) });
  projectA = await semanticProject("flood-a");
  keyA = gw.key({ projectId: projectA, scopes: ["chat", "models"] });
  keyB = gw.key({ projectId: await semanticProject("flood-b"), scopes: ["chat", "models"] });
});
afterAll(() => gw.stop());

// Seeded: the same users, scopes and questions on every run.
let seed = 1414;
const next = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
const TOPICS = ["build cache", "proxy settings", "log rotation", "backup schedule", "dark mode", "webhook retries"];

async function ask(key: string, content: string, extra: Record<string, unknown>, headers: Record<string, string> = {}): Promise<string | null> {
  const res = await post(`${gw.url}/chat/completions`, key, { model: "gw-auto", messages: [{ role: "user", content }], ...extra }, headers);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { gw: { cache: string | null } };
  return body.gw.cache;
}

test("a flood of distinct users and scopes stays within the index caps, without wrong hits, while light requests are served", async () => {
  const jobs = Array.from({ length: FLOOD }, (_, i) => {
    const r = next();
    const byScope = i % 2 === 1;
    return {
      key: i % 3 === 2 ? keyB : keyA,
      content: `How do I configure the ${TOPICS[r % TOPICS.length]} for team ${r % 97}?`,
      extra: (byScope ? {} : { user: `user-${i}-${r.toString(36)}` }) as Record<string, unknown>,
      headers: (byScope ? { "x-gw-cache-scope": `scope-${i}-${r.toString(36)}` } : {}) as Record<string, string>,
    };
  });
  let done = 0;
  let lightAnsweredDuringFlood = false;
  // In the order the answers came back: on a busy machine the workers drift apart, so the job
  // with the highest index is not always among the most recent.
  const completed: typeof jobs = [];
  const workers = Array.from({ length: 8 }, async (_, w) => {
    for (let i = w; i < jobs.length; i += 8) {
      const j = jobs[i]!;
      await ask(j.key, j.content, j.extra, j.headers);
      completed.push(j);
      done++;
    }
  });
  // Once the flood is under way, a light request must be answered before it ends.
  while (done < 50) await new Promise((resolve) => setImmediate(resolve));
  const models = await get(`${gw.url}/models`, keyA);
  expect(models.status).toBe(200);
  lightAnsweredDuringFlood = done < FLOOD;
  await Promise.all(workers);
  await gw.deps.semantic!.settled();
  expect(lightAnsweredDuringFlood).toBe(true);

  const stats = gw.deps.semantic!.stats();
  expect(stats.bytes).toBeLessThanOrEqual(TOTAL_MB * 1024 * 1024);
  expect(stats.evictions).toBeGreaterThan(0);
  expect(stats.partitions).toBeLessThan(FLOOD / 2);
  expect(stats.graphs).toBe(0);

  // The last user's scope is recent: its paraphrase is a semantic hit. The first user's was evicted:
  // a miss, never someone else's answer.
  const last = completed.findLast((j) => "user" in j.extra && j.key === keyA)!;
  const paraphrase = (q: string) => q.replace("How do I", "How can I");
  expect(await ask(last.key, paraphrase(last.content), last.extra)).toBe("semantic");
  const first = completed.find((j) => "user" in j.extra && j.key === keyA)!;
  expect(await ask(first.key, paraphrase(first.content), first.extra)).toBeNull();
  // The same question under another user or scope never reuses that answer.
  expect(await ask(last.key, paraphrase(last.content), { user: "someone-else" })).toBeNull();
  expect(await ask(last.key, paraphrase(last.content), {}, { "x-gw-cache-scope": "another-scope" })).toBeNull();
  expect(await ask(keyB, paraphrase(last.content), last.extra)).toBeNull();
});
