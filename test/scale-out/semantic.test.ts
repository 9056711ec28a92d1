// The semantic cache across two gw processes on one PostgreSQL and one Redis (docs/scale-out.md
// "Semantic cache"): a question answered through instance 0 is a semantic hit for its paraphrase on
// instance 1, a one-fact mutant misses, and emptying the cache on 1 makes the paraphrase miss on 0.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startMultiGw, type MultiGw } from "../helpers/multi-gw.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";
import { post } from "../helpers/test-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { json } from "../helpers/expect-json.ts";

const MODEL = "openai/gpt-4o-mini";
/** Logged at debug level by each instance once it has embedded and indexed a batch of questions. */
const INDEXED = "semantic stream: entries indexed";

let m: MultiGw;
let upstream: ScriptedUpstream;
beforeAll(async () => {
  upstream = await startScriptedUpstream();
  // The n-gram embedder: no model to load (the sentence model's own tests are in test/cache).
  m = await startMultiGw(2, { ...upstreamEnv("openai", upstream.url, "sk-operator"), GW_SEMANTIC_EMBEDDER: "ngram", GW_LOG_LEVEL: "debug" });
});
afterAll(async () => {
  await m?.stop();
  await upstream?.stop();
});

interface Answer { choices: Array<{ message: { content: string } }>; gw: { cache: string | null; similarity?: number } }
const ask = async (i: number, key: string, content: string): Promise<Answer> =>
  json<Answer>(await post(`${m.instances[i]!.url}/chat/completions`, key, { model: MODEL, messages: [{ role: "user", content }] }), 200);
const indexed = (i: number): number => m.instances[i]!.output().split(INDEXED).length - 1;

describe("the semantic cache shared by two instances", () => {
  test("asked through 0, the paraphrase through 1 is a semantic hit; a one-fact mutant through 1 misses; emptied on 1, the paraphrase on 0 misses", async () => {
    const { id } = await json<{ id: string }>(await m.admin("POST", "/projects", { name: "sem", policy: { semantic_cache: true, semantic_threshold: 0.6 } }), 201);
    const { key } = await json<{ key: string }>(await m.admin("POST", `/projects/${id}/keys`, { name: "live", scopes: ["chat", "cache", "requests"] }), 201);

    const [on0, on1] = [indexed(0), indexed(1)];
    const first = await ask(0, key, "How do I install the command line tool on Linux?");
    expect(first.gw.cache).toBeNull();
    // Stored in Redis off the answer's path, then read from the stream and embedded by instance 1.
    await waitFor(() => indexed(1) > on1 && indexed(0) > on0, { timeoutMs: 15_000, what: "the question indexed on both instances" });
    const calls = upstream.callCount();
    const para = await ask(1, key, "How can I install the command line tool on Linux?");
    expect(para.gw.cache).toBe("semantic");
    expect(para.gw.similarity).toBeGreaterThan(0.6);
    expect(para.choices[0]!.message.content).toBe(first.choices[0]!.message.content);
    expect(upstream.callCount()).toBe(calls);

    // The same question with another year: the literal guard refuses it on 1 as on one machine.
    const mutant = await ask(1, key, "How do I install the command line tool on Linux 2023?");
    expect(mutant.gw.cache).toBeNull();
    expect(upstream.callCount()).toBe(calls + 1);

    // A hit stores nothing: the same paraphrase can be asked on 0 before and after the emptying.
    const again = "How could I install the command line tool on Linux?";
    expect((await ask(0, key, again)).gw.cache).toBe("semantic");
    const emptied = await json<{ deleted: number }>(await post(`${m.instances[1]!.url}/cache/invalidate`, key, { all: true }), 200);
    expect(emptied.deleted).toBeGreaterThanOrEqual(1);
    expect((await ask(0, key, again)).gw.cache).toBeNull();
    expect(upstream.callCount()).toBe(calls + 2);
  });
});
