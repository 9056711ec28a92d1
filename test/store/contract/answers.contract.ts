// The exact cache's answer store contract (docs/cache.md "Storage"), run against the in-process
// SQLite store (through an async view) and Redis: hits, replacement, ids, tags, emptying, expiry.
import { describe, expect, test } from "bun:test";
import type { NewCacheRecord, SharedAnswerStore } from "../../../src/store/answer-cache-store.ts";

export interface AnswersUnderTest {
  store: SharedAnswerStore;
  /** Ids reported removed so far (onRemoved). */
  removed: number[];
}
export type MakeAnswers = (now: number) => AnswersUnderTest | Promise<AnswersUnderTest>;

const HOUR = 3_600_000;
let seq = 0;

export function answersContract(name: string, make: MakeAnswers): void {
  describe(`${name}: answer store contract`, () => {
    const now = Date.now();
    const entry = (over: Partial<NewCacheRecord> = {}): NewCacheRecord => ({
      projectId: "prj_a", key: `key-${++seq}`, partition: "part-1", model: "openai/gpt-4o-mini", provider: "openai",
      body: JSON.stringify({ id: "chatcmpl-1", choices: [{ index: 0, message: { role: "assistant", content: "Paris, é ü 東京." } }] }),
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 }, tags: ["faq"], question: null,
      createdAt: now, expiresAt: now + HOUR, ...over,
    });

    test("a stored answer is an exact hit, byte for byte, by key and by id; other projects and keys miss", async () => {
      const { store } = await make(now);
      const e = entry({ tags: ["b", "a", "b"], question: "capital of France?" });
      const stored = await store.put(e);
      expect(stored.tags).toEqual(["a", "b"]);
      const hit = await store.get("prj_a", e.key, now);
      expect(hit).toEqual({ ...e, tags: ["a", "b"], id: stored.id });
      expect(await store.byId("prj_a", stored.id, now)).toEqual(hit);
      expect(await store.get("prj_b", e.key, now)).toBeNull();
      expect(await store.byId("prj_b", stored.id, now)).toBeNull();
      expect(await store.get("prj_a", "no-such-key", now)).toBeNull();
    });

    test("replacing a key gives a new id and reports the old one removed", async () => {
      const { store, removed } = await make(now);
      const e = entry();
      const first = await store.put(e);
      const second = await store.put({ ...e, body: '{"v":2}' });
      expect(second.id).not.toBe(first.id);
      expect(removed).toContain(first.id);
      expect((await store.get("prj_a", e.key, now))?.body).toBe('{"v":2}');
      expect(await store.byId("prj_a", first.id, now)).toBeNull();
    });

    test("an answer past its expiry is a miss", async () => {
      const { store } = await make(now);
      const e = entry({ expiresAt: now + 1000 });
      const stored = await store.put(e);
      expect(await store.get("prj_a", e.key, now + 1000)).toBeNull();
      expect(await store.byId("prj_a", stored.id, now + 1000)).toBeNull();
    });

    test("invalidating by tag removes only the answers carrying it, in that project", async () => {
      const { store, removed } = await make(now);
      const tagged = await store.put(entry({ tags: ["faq", "x"] }));
      const other = await store.put(entry({ tags: ["pricing"] }));
      const elsewhere = await store.put(entry({ projectId: "prj_b", tags: ["faq"] }));
      expect(await store.invalidate("prj_a", { tags: ["faq", "nothing"] })).toBe(1);
      expect(removed).toContain(tagged.id);
      expect(await store.get("prj_a", tagged.key, now)).toBeNull();
      expect((await store.get("prj_a", other.key, now))?.id).toBe(other.id);
      expect((await store.get("prj_b", elsewhere.key, now))?.id).toBe(elsewhere.id);
    });

    test("a key replaced without the tag survives invalidation of that tag", async () => {
      const { store } = await make(now);
      const e = entry({ tags: ["old"] });
      await store.put(e);
      const replaced = await store.put({ ...e, tags: ["new"] });
      expect(await store.invalidate("prj_a", { tags: ["old"] })).toBe(0);
      expect((await store.get("prj_a", e.key, now))?.id).toBe(replaced.id);
    });

    test("emptying a project misses every answer of it, and only of it; new answers are stored after", async () => {
      const { store } = await make(now);
      const a = await store.put(entry({ projectId: "prj_e" }));
      const b = await store.put(entry({ projectId: "prj_e", tags: [] }));
      const kept = await store.put(entry({ projectId: "prj_f" }));
      expect(await store.invalidate("prj_e", { all: true })).toBeGreaterThanOrEqual(2);
      expect(await store.get("prj_e", a.key, now)).toBeNull();
      expect(await store.byId("prj_e", b.id, now)).toBeNull();
      expect((await store.get("prj_f", kept.key, now))?.id).toBe(kept.id);
      const again = await store.put({ ...entry({ projectId: "prj_e" }), key: a.key });
      expect((await store.get("prj_e", a.key, now))?.id).toBe(again.id);
    });
  });
}
