// The pair features of the learned hit decision (docs/semantic-cache.md "Hit decision"): words of any
// script, CJK character pairs, content words, question-word, auxiliary and modal changes, bounds.
import { describe, expect, test } from "bun:test";
import { FEATURE_NAMES, pairFeatures, questionSide, tokens } from "../../src/cache/semantic-pair-features.ts";

const features = (a: string, b: string, cosine = 0.95, margin = 1): Record<string, number> => {
  const x = pairFeatures(questionSide(a), questionSide(b), cosine, margin);
  return Object.fromEntries(FEATURE_NAMES.map((n, i) => [n, x[i] as number]));
};

describe("question side", () => {
  test("words of any script, lowercased after NFKC; each Chinese or Japanese character a word", () => {
    expect(tokens("Why is Ｐｙｔｈｏｎ slow?")).toEqual(["why", "is", "python", "slow"]);
    expect(tokens("Почему небо голубое?")).toEqual(["почему", "небо", "голубое"]);
    expect(tokens("北京的人口是多少？")).toEqual(["北", "京", "的", "人", "口", "是", "多", "少"]);
    expect(tokens("Où est la gare — près d'ici?")).toEqual(["où", "est", "la", "gare", "près", "d", "ici"]);
  });

  test("content words are stemmed and leave out function words; CJK text gives character pairs", () => {
    expect([...questionSide("How do I reset my passwords?").content]).toEqual(["reset", "password"]);
    expect([...questionSide("北京人口").content]).toEqual(["北", "北京", "京人", "人口"]);
  });

  test("bounded: a very long question reads at most 96 words", () => {
    expect(tokens("word ".repeat(10_000)).length).toBe(96);
    expect(questionSide(`${"lorem ipsum ".repeat(5_000)}?`).length).toBeLessThanOrEqual(96);
  });
});

describe("pair features", () => {
  test("one value per feature name, in order; cosine and margin as given", () => {
    const f = features("How do I learn to cook?", "How can I learn cooking?", 0.94, 0.02);
    expect(Object.keys(f)).toEqual([...FEATURE_NAMES]);
    expect(f.cosine).toBe(0.94);
    expect(f.margin).toBeCloseTo(0.2, 9);
  });

  test("the same question reworded shares its content words; a changed content word does not", () => {
    const same = features("How do I learn to cook?", "How can I learn cooking?");
    expect(same.content_jaccard).toBe(1);
    expect(same.substituted).toBe(0);
    const changed = features("How do I lose weight quickly?", "How do I gain weight quickly?");
    expect(changed.content_jaccard).toBeCloseTo(2 / 4, 9);
    expect(changed.substituted).toBe(1);
  });

  test("word order of content words counts through their pairs", () => {
    const swapped = features("How is toluene converted into benzene?", "How is benzene converted into toluene?");
    expect(swapped.content_jaccard).toBe(1);
    expect(swapped.bigram_jaccard).toBe(0);
  });

  test("question word, auxiliary, modal and tense changes", () => {
    expect(features("Why is the sky blue?", "How is the sky blue?").question_word_change).toBe(1);
    expect(features("What should I eat?", "What can I eat?")).toMatchObject({ auxiliary_change: 1, modal_change: 0 });
    expect(features("What should I eat?", "What do I eat?")).toMatchObject({ auxiliary_change: 1, modal_change: 1 });
    expect(features("Who won the match?", "Who did win the match?").tense_change).toBe(1);
    expect(features("What is AI?", "What is AI?")).toMatchObject({ question_word_change: 0, auxiliary_change: 0, modal_change: 0, tense_change: 0, length_ratio: 1 });
  });
});
