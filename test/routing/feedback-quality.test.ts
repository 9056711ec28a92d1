// Quality from feedback (issue 5 item 10): a Bayesian average of the catalog prior and ratings;
// few ratings move it little, many move it far, and routing follows it.
import { describe, expect, test } from "bun:test";
import { buildCatalog } from "../../src/routing/catalog.ts";
import { FeedbackQuality } from "../../src/routing/feedback-quality.ts";
import { scoreModels } from "../../src/routing/score.ts";

const catalog = buildCatalog();
const sonnet = catalog.get("anthropic/claude-sonnet-4-5")!;

describe("FeedbackQuality", () => {
  test("no ratings: the catalog prior", () => {
    expect(new FeedbackQuality().quality(sonnet, "coding")).toBe(sonnet.quality.coding);
  });

  test("one bad rating moves the prior a little, forty move it far, and only for that task", () => {
    const f = new FeedbackQuality();
    f.record("prj_a", sonnet.id, "coding", 1);
    const one = f.quality(sonnet, "coding", false, "prj_a");
    expect(one).toBeLessThan(sonnet.quality.coding);
    expect(one).toBeGreaterThan(sonnet.quality.coding - 0.05);
    for (let i = 0; i < 39; i++) f.record("prj_a", sonnet.id, "coding", 1);
    // (0.95 x 20 + 0 x 40) / 60
    expect(f.quality(sonnet, "coding", false, "prj_a")).toBeCloseTo((sonnet.quality.coding * 20) / 60, 3);
    expect(f.quality(sonnet, "chat", false, "prj_a")).toBe(sonnet.quality.chat);
    expect(f.ratings(sonnet.id, "coding", false, "prj_a")).toBe(40);
  });

  test("ratings outside 1..5 are refused", () => {
    expect(() => new FeedbackQuality().record("prj_a", sonnet.id, "coding", 6)).toThrow();
    expect(() => new FeedbackQuality().record("prj_a", sonnet.id, "coding", 2.5)).toThrow();
  });

  test("the router follows: a model rated down for coding loses its place to the next best coder", () => {
    const models = catalog.models.filter((m) => !m.capabilities.embeddings);
    const input = { profile: "gw-max" as const, task: "coding" as const, workload: "coding" as const, complexity: "high" as const, inputTokens: 500, outputTokens: 500 };
    const before = scoreModels(models, input).ranked[0]!.model;
    const f = new FeedbackQuality();
    for (let i = 0; i < 100; i++) f.record("prj_a", before.id, "coding", 1);
    const after = scoreModels(models, input, () => null, () => 1, (m, t) => f.quality(m, t, false, "prj_a")).ranked[0]!.model;
    expect(after.id).not.toBe(before.id);
  });
});
