// The ratings store's contract (src/store/repos/feedback.ts FeedbackStore), run against SQLite and
// PostgreSQL: the last rating wins and says which it replaced, reads stay in their project, and the
// counted aggregates the router's quality is built from.
import { describe, expect, test } from "bun:test";
import type { FeedbackAggregate, FeedbackInput, FeedbackStore } from "../../../src/store/repos/feedback.ts";

export interface FeedbackHarness {
  store: FeedbackStore;
  /** Another instance's store on the same data (a second pool, a second handle). */
  fresh(): FeedbackStore;
}

let made = 0;
const unique = (what: string) => `${what}_${process.pid}_${++made}_${Math.random().toString(36).slice(2, 8)}`;
const T0 = Date.UTC(2026, 10, 26, 12);

const rating = (projectId: string, over: Partial<FeedbackInput> = {}): FeedbackInput => ({
  projectId, requestId: unique("req"), modelId: "openai/gpt-4o-mini", task: "translation", test: false, counted: true,
  rating: 4, now: T0 + made, ...over,
});

const aggregatesOf = async (store: FeedbackStore, projectId: string): Promise<FeedbackAggregate[]> =>
  (await store.aggregates()).filter((a) => a.projectId === projectId)
    .sort((a, b) => `${a.test}${a.modelId}${a.task}`.localeCompare(`${b.test}${b.modelId}${b.task}`));

export function feedbackContract(name: string, make: () => Promise<FeedbackHarness>): void {
  describe(`${name}: feedback store contract`, () => {
    test("a first rating replaces none; a second returns the first and wins; reads stay in their project", async () => {
      const { store, fresh } = await make();
      const project = unique("prj");
      const f = rating(project, { rating: 2 });
      expect((await store.rate(f)).previous).toBeNull();
      expect(await store.get(project, f.requestId)).toBe(2);
      expect((await fresh().rate({ ...f, rating: 5, now: f.now + 1 })).previous).toBe(2);
      expect(await store.get(project, f.requestId)).toBe(5);
      expect(await fresh().get(project, f.requestId)).toBe(5);
      expect(await store.get(unique("prj"), f.requestId)).toBeNull();
      expect(await store.get(project, unique("req"))).toBeNull();
    });

    test("aggregates: counted ratings per pool, model and task, a replaced rating counted once with its latest value", async () => {
      const { store, fresh } = await make();
      const project = unique("prj");
      const a = rating(project, { rating: 1 });
      await store.rate(a);
      await store.rate({ ...a, rating: 3 });
      await store.rate(rating(project, { rating: 5 }));
      await store.rate(rating(project, { rating: 2, test: true }));
      await store.rate(rating(project, { rating: 4, modelId: "anthropic/claude-haiku-4-5", task: "qa" }));
      // Stored, never counted: not counted, or no model or task.
      await store.rate(rating(project, { rating: 1, counted: false }));
      await store.rate(rating(project, { rating: 1, counted: false, modelId: null, task: null }));
      const expected: FeedbackAggregate[] = [
        { projectId: project, modelId: "anthropic/claude-haiku-4-5", task: "qa", test: false, ratingSum: 4, count: 1 },
        { projectId: project, modelId: "openai/gpt-4o-mini", task: "translation", test: false, ratingSum: 8, count: 2 },
        { projectId: project, modelId: "openai/gpt-4o-mini", task: "translation", test: true, ratingSum: 2, count: 1 },
      ];
      expect(await aggregatesOf(store, project)).toEqual(expected);
      expect(await aggregatesOf(fresh(), project)).toEqual(expected);
    });

    test("two first ratings of one request at once, through two handles: exactly one replaces none, and it counts once", async () => {
      const { store, fresh } = await make();
      const other = fresh();
      const project = unique("prj");
      for (let round = 0; round < 5; round++) {
        const f = rating(project, { rating: 2 });
        const answers = await Promise.all([store.rate(f), other.rate({ ...f, rating: 4 })]);
        const previous = answers.map((x) => x.previous).sort();
        expect(previous.filter((p) => p === null)).toHaveLength(1);
        // The second one replaced the first: whichever it was.
        expect([2, 4]).toContain(previous.find((p) => p !== null)!);
      }
      const [sums] = await aggregatesOf(store, project);
      expect(sums?.count).toBe(5);
    });
  });
}
