// The exact response cache through the real server (docs/cache.md; issue 7): hit semantics,
// streams from and into the cache, every key component, TTL classes, tags and invalidation, and
// a failing store being a miss. A live key against a scripted upstream counts the upstream calls.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../../helpers/start-gw.ts";
import { ADMIN_TOKEN, post, type TestGw } from "../../helpers/test-gw.ts";
import { sseData } from "../../helpers/flow-helpers.ts";

let gw: TestGw;
let up: ScriptedUpstream;
let key: string;
let n = 0;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ gw, upstreams: { openai: up }, stop } = await startGw({ upstreams: { openai: openaiUpstream() } }));
  key = gw.key({ mode: "live", scopes: ["chat", "requests", "cache"] });
});
afterAll(() => stop());
beforeEach(() => up.reset());

interface Answer {
  choices: Array<{ message: { content: string } }>;
  gw: { cache: string | null; provider: string; cost: number; saved: number; request_id: string; selected_model: string };
}
/** A question no other test asks, so each test starts cold. */
const fresh = (text = "What is the capital of Australia?") => `${text} (case ${++n})`;
const body = (content: string, extra: Record<string, unknown> = {}) => ({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }], ...extra });
async function ask(b: unknown, headers: Record<string, string> = {}, k = key): Promise<{ res: Response; answer: Answer }> {
  const res = await post(`${gw.url}/chat/completions`, k, b, headers);
  expect(res.status).toBe(200);
  return { res, answer: (await res.clone().json()) as Answer };
}
async function traceCache(id: string, k = key): Promise<Record<string, unknown>> {
  await gw.drain();
  const res = await fetch(`${gw.url}/requests/${id}`, { headers: { authorization: `Bearer ${k}` } });
  return ((await res.json()) as { trace: { cache: Record<string, unknown> } }).trace.cache;
}
const patchPolicy = (projectId: string, policy: Record<string, unknown>) =>
  fetch(`${gw.url}/admin/projects/${projectId}`, {
    // Business: zero retention is a Business feature (docs/billing.md "Plans").
    method: "PATCH", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify({ plan: "business", policy }),
  });

describe("an exact hit", () => {
  test("the repeat is served from the cache: provider cache, cost 0, the full baseline saved, one upstream call", async () => {
    const q = fresh();
    const first = await ask(body(q));
    expect(first.answer.gw.cache).toBeNull();
    expect(first.res.headers.get("x-gw-cache")).toBe("miss");
    const second = await ask(body(q));
    expect(up.callCount("/v1/chat/completions")).toBe(1);
    expect(second.res.headers.get("x-gw-cache")).toBe("exact");
    expect(second.res.headers.get("x-gw-provider")).toBe("cache");
    expect(second.answer.gw).toMatchObject({ cache: "exact", provider: "cache", cost: 0, selected_model: "openai/gpt-4o-mini" });
    expect(second.answer.gw.saved).toBe(first.answer.gw.cost);
    expect(second.answer.gw.saved).toBeGreaterThan(0);
    expect(second.answer.choices[0]!.message.content).toBe(first.answer.choices[0]!.message.content);
    await gw.drain();
    const row = (await (await fetch(`${gw.url}/requests/${second.answer.gw.request_id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as Record<string, unknown>;
    expect(row).toMatchObject({ cache: "exact", provider: "cache", cost: 0 });
    expect((row.trace as { cache: unknown }).cache).toMatchObject({ result: "hit", kind: "exact" });
  });

  test("whitespace differences in the messages still hit", async () => {
    const q = fresh("How many legs does a spider have?");
    await ask(body(q));
    const spaced = await ask(body(`  ${q.replace(/ /g, "   ")}\n`));
    expect(spaced.answer.gw.cache).toBe("exact");
  });

  test("a streamed answer is stored, and a repeat streams from the cache with gw.cache in the summary", async () => {
    const q = fresh("Name three primary colours.");
    const firstLines = await sseData(await post(`${gw.url}/chat/completions`, key, body(q, { stream: true })));
    const firstText = firstLines.filter((l) => l !== "[DONE]").map((l) => JSON.parse(l)).map((c) => c.choices?.[0]?.delta?.content ?? "").join("");
    const res = await post(`${gw.url}/chat/completions`, key, body(q, { stream: true }));
    expect(res.headers.get("x-gw-cache")).toBe("exact");
    const lines = await sseData(res);
    expect(lines.at(-1)).toBe("[DONE]");
    const chunks = lines.slice(0, -1).map((l) => JSON.parse(l) as { object: string; choices: Array<{ delta: { content?: string } }>; gw?: { cache: string; cost: number } });
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe(firstText);
    expect(chunks.at(-1)!.gw).toMatchObject({ cache: "exact", cost: 0 });
    expect(up.callCount("/v1/chat/completions")).toBe(1);
    // The stored answer also serves the same request without stream.
    expect((await ask(body(q))).answer.gw.cache).toBe("exact");
  });

  test("/responses is served from the same cache", async () => {
    const q = fresh("Define photosynthesis in one line.");
    const r1 = await post(`${gw.url}/responses`, key, { model: "openai/gpt-4o-mini", input: q });
    const r2 = await post(`${gw.url}/responses`, key, { model: "openai/gpt-4o-mini", input: q });
    const a1 = (await r1.json()) as { output_text: string };
    const a2 = (await r2.json()) as { output_text: string; gw: { cache: string } };
    expect(a2.gw.cache).toBe("exact");
    expect(a2.output_text).toBe(a1.output_text);
  });
});

describe("skip rules (no lookup, nothing stored)", () => {
  const cases: Array<[string, (q: string) => unknown, Record<string, string>?]> = [
    ["live_data", () => body(`What is the weather in Paris today? ${++n}`)],
    ["tool_messages", (q) => ({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: q }, { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] }, { role: "tool", tool_call_id: "c1", content: "42" }] })],
    ["tools", (q) => body(q, { tools: [{ type: "function", function: { name: "f", parameters: { type: "object", properties: {} } } }], tool_choice: "none" })],
    ["n_greater_than_1", (q) => body(q, { n: 2 })],
    ["personal_without_user", () => body(`What is the balance of my bank account? ${++n}`)],
    ["header_off", (q) => body(q), { "x-gw-cache": "off" }],
    ["bypass", (q) => body(q, { cache: { mode: "bypass" } })],
  ];
  for (const [reason, make, headers] of cases) {
    test(reason, async () => {
      const b = make(fresh());
      const first = await post(`${gw.url}/chat/completions`, key, b, headers);
      expect(first.status).toBe(200);
      const second = await ask(b, headers);
      expect(second.answer.gw.cache).toBeNull();
      expect(await traceCache(second.answer.gw.request_id)).toMatchObject({ result: "skip", miss_reason: reason });
    });
  }

  test("a personal question with a `user` is cached for that user only", async () => {
    const q = `What is the balance of my bank account? ${++n}`;
    await ask(body(q, { user: "u-1" }));
    expect((await ask(body(q, { user: "u-1" }))).answer.gw.cache).toBe("exact");
    expect((await ask(body(q, { user: "u-2" }))).answer.gw.cache).toBeNull();
  });

  test("policy cache false and retention zero", async () => {
    for (const policy of [{ cache: false }, { retention: "zero" }]) {
      const project = gw.newProject(`skip-${JSON.stringify(policy)}`);
      expect((await patchPolicy(project, policy)).status).toBe(200);
      const k = gw.key({ mode: "live", projectId: project, scopes: ["chat", "requests"] });
      const q = fresh();
      await ask(body(q), {}, k);
      const second = await ask(body(q), {}, k);
      expect(second.answer.gw.cache).toBeNull();
      expect(await traceCache(second.answer.gw.request_id, k)).toMatchObject({ result: "skip", miss_reason: policy.cache === false ? "policy_off" : "retention_zero" });
    }
  });

  test("cache.refresh does not read but stores the fresh answer", async () => {
    const q = fresh();
    await ask(body(q));
    const refreshed = await ask(body(q, { cache: { refresh: true } }));
    expect(refreshed.answer.gw.cache).toBeNull();
    expect(up.callCount("/v1/chat/completions")).toBe(2);
    expect(await traceCache(refreshed.answer.gw.request_id)).toMatchObject({ result: "refresh", stored: { ttl_class: "faq" } });
  });

  test("test-scenario models are never cached", async () => {
    const b = { model: "gw-test:fallback", messages: [{ role: "user", content: fresh() }] };
    await ask(b, {}, gw.testKey);
    const again = await ask(b, {}, gw.testKey);
    expect(again.answer.gw).toMatchObject({ cache: null, fallbacks: 1 });
  });
});

describe("key components: a change in any one is a miss", () => {
  const variants: Array<[string, Record<string, unknown>, Record<string, string>?]> = [
    ["user", { user: "someone" }],
    ["scope header", {}, { "x-gw-cache-scope": "tenant-7" }],
    ["system prompt", { messages: [{ role: "system", content: "Answer in French." }, { role: "user", content: "" }] }],
    ["max_tokens", { max_tokens: 33 }],
    ["temperature", { temperature: 0.3 }],
    ["top_p", { top_p: 0.5 }],
    ["stop", { stop: ["END"] }],
    ["response_format", { response_format: { type: "json_object" } }],
    ["model", { model: "openai/gpt-4.1-mini" }],
    ["routing policy", { routing: { mode: "quality" } }],
    ["prompt version", { gw: { versions: { prompt: "v2" } } }],
    ["tools version", { gw: { versions: { tools: "v2" } } }],
    ["knowledge version", { gw: { versions: { knowledge: "kb-9" } } }],
    ["memory version", { gw: { versions: { memory: "m-3" } } }],
  ];
  for (const [what, change, headers] of variants) {
    test(what, async () => {
      const q = fresh();
      await ask(body(q));
      const changed = { ...body(q), ...change } as { messages: Array<{ content: string }> };
      if (what === "system prompt") changed.messages[1]!.content = q;
      expect((await ask(changed, headers)).answer.gw.cache).toBeNull();
      expect((await ask(changed, headers)).answer.gw.cache).toBe("exact");
    });
  }

  test("the security policy, the key mode and the project", async () => {
    const q = fresh();
    await ask(body(q));
    const project = gw.newProject("keys-other");
    const otherKey = gw.key({ mode: "live", projectId: project, scopes: ["chat"] });
    expect((await ask(body(q), {}, otherKey)).answer.gw.cache).toBeNull();
    const testKey = gw.key({ mode: "test", scopes: ["chat"] });
    const t1 = await ask(body(q), {}, testKey);
    expect(t1.answer.gw).toMatchObject({ cache: null, provider: "sandbox" });
    expect((await patchPolicy(gw.projectId, { pii: "redact" })).status).toBe(200);
    expect((await ask(body(q))).answer.gw.cache).toBeNull();
    expect((await patchPolicy(gw.projectId, { pii: null })).status).toBe(200);
    expect((await ask(body(q))).answer.gw.cache).toBe("exact");
  });
});
