// The literal guard on gw's one-fact mutant set (test/fixtures/guard-mutants.json, written by
// bench/semantic-eval/guard-mutants/generate.ts; docs/semantic-cache.md "Literal guard"): not one
// mutant may pass, in any mode, in any language or quoting style; few true paraphrases are blocked.
import { describe, expect, test } from "bun:test";
import { NgramEmbedder } from "../../src/cache/embedder/ngram.ts";
import { dot } from "../../src/cache/embedder/types.ts";
import { SEMANTIC_THRESHOLDS, decideSemanticHit } from "../../src/cache/semantic-decision.ts";
import { disagreement, guardEntities } from "../../src/cache/semantic-guard.ts";
import set from "../fixtures/guard-mutants.json";

interface Mutant { lang: string; kind: string; sub: string; original: string; variant: string }
interface Paraphrase { lang: string; kind: string; original: string; paraphrase: string }
const mutants: Mutant[] = set.mutants;
const paraphrases: Paraphrase[] = set.paraphrases;
const differ = (a: string, b: string): string | null => disagreement(guardEntities(a), guardEntities(b));
const LANGS = ["en", "fr", "de", "es", "pt", "ru", "zh", "ja"];
/** Scripts without capitals, or (Greek) with them but none of the other languages' words. */
const CASELESS_LANGS = ["ko", "ar", "he", "el"];
const KINDS = ["quoted", "negation", "number", "date", "version", "name"];
const STYLES = ["straight", "curly", "doubled", "doubled curly", "single", "single curly", "backticks", "guillemets", "german low", "CJK corner", "CJK white corner", "full-width", "single guillemets"];

describe("guard mutant set: coverage", () => {
  test("at least 500 mutants, every kind in every language, every quoting style in every language", () => {
    expect(mutants.length).toBeGreaterThanOrEqual(500);
    for (const lang of LANGS) {
      for (const kind of KINDS) expect(mutants.filter((m) => m.lang === lang && m.kind === kind).length).toBeGreaterThanOrEqual(2);
      for (const style of STYLES) expect(mutants.some((m) => m.lang === lang && m.kind === "quoted" && m.sub === style)).toBe(true);
    }
  });

  test("Korean, Arabic, Hebrew and Greek: names, numbers and negations, every quoting style (issue 22)", () => {
    expect(mutants.filter((m) => CASELESS_LANGS.includes(m.lang)).length).toBeGreaterThanOrEqual(150);
    for (const lang of CASELESS_LANGS) {
      for (const kind of ["name", "number", "negation"]) expect(mutants.filter((m) => m.lang === lang && m.kind === kind).length).toBeGreaterThanOrEqual(8);
      for (const style of STYLES) expect(mutants.some((m) => m.lang === lang && m.kind === "quoted" && m.sub === style)).toBe(true);
    }
  });

  test("negation removed and added: contractions, without/with, never, and each language's own", () => {
    for (const sub of ["don't / do", "can't / can", "won't / will", "isn't / is", "without / with", "never / ever", "ne...pas", "nicht", "kein / ohne", "no", "não", "не", "不 / 没", "ない", "않 / 안 / 없", "없이 / 말아야", "لا / لم / لن / ما", "ألا / ألم", "بدون / مع", "غير / ليس", "לא / אינו / אין", "בלי / ללא", "δεν / ποτέ", "χωρίς / με"]) {
      for (const way of ["removed", "added"]) expect(mutants.some((m) => m.sub === `${sub}, ${way}`)).toBe(true);
    }
  });

  test("the set on disk is what the generator writes", async () => {
    const { buildSet } = await import("../../bench/semantic-eval/guard-mutants/generate.ts");
    const built: { mutants: object[]; paraphrases: object[] } = buildSet();
    expect(built.mutants).toEqual(mutants);
    expect(built.paraphrases).toEqual(paraphrases);
  });
});

describe("guard mutant set: the guard refuses every mutant", () => {
  test("disagreement() reports a difference for every mutant", () => {
    expect(mutants.filter((m) => differ(m.original, m.variant) === null).map((m) => `${m.original} | ${m.variant}`)).toEqual([]);
  });

  test("...in both directions (the variant cached, the original asked)", () => {
    expect(mutants.filter((m) => differ(m.variant, m.original) === null).map((m) => `${m.variant} | ${m.original}`)).toEqual([]);
  });

  test("no mutant hits in any mode, even at similarity 1, and the miss says literal_mismatch", () => {
    for (const m of mutants) {
      for (const threshold of Object.values(SEMANTIC_THRESHOLDS)) {
        const d = decideSemanticHit({ text: m.variant }, [{ id: 1, text: m.original, similarity: 1 }], threshold);
        expect(d.hit).toBe(false);
        expect(d.reason).toStartWith("literal_mismatch:");
      }
    }
  });

  test("with the n-gram embedder's real similarities: no mutant hits in any mode", async () => {
    const e = new NgramEmbedder();
    const vectors = await e.embed(mutants.flatMap((m) => [m.original, m.variant]));
    mutants.forEach((m, n) => {
      const similarity = dot(vectors[2 * n]!, vectors[2 * n + 1]!);
      for (const threshold of Object.values(SEMANTIC_THRESHOLDS)) {
        expect(decideSemanticHit({ text: m.variant }, [{ id: 1, text: m.original, similarity }], threshold).hit).toBe(false);
      }
    });
  });
});

describe("guard mutant set: true paraphrases", () => {
  test("at most 3% of the paraphrases are blocked overall (now 12 of 1,272), and at most 12% in any one language", () => {
    const blocked = paraphrases.filter((p) => differ(p.original, p.paraphrase) !== null);
    expect(blocked.length / paraphrases.length).toBeLessThanOrEqual(0.03);
    for (const lang of [...LANGS, ...CASELESS_LANGS]) {
      const mine = paraphrases.filter((p) => p.lang === lang);
      expect(mine.filter((p) => blocked.includes(p)).length / mine.length).toBeLessThanOrEqual(0.12);
    }
  });

  test("the same quoted term in two quoting styles agrees", () => {
    expect(differ('What does ""break a leg"" mean?', "What does « break a leg » mean?")).toBeNull();
    expect(differ("What does `break a leg` mean?", "What does ‘break a leg’ mean?")).toBeNull();
    expect(differ("「猫に小判」とはどういう意味ですか？", "『猫に小判』の意味を教えてください。")).toBeNull();
  });
});

describe("guard rules behind the set", () => {
  test("units and scales bind to their number; the same quantity written two ways agrees", () => {
    expect(differ("Walk 5 km", "Walk 5 kilometres")).toBeNull();
    expect(differ("Is 60k a good salary?", "Is 60 k a good salary?")).toBeNull();
    expect(differ("Is 10% enough?", "Is 10 % enough?")).toBeNull();
    expect(differ("Raise $2 billion", "Raise $2 million")).toBe("numbers");
  });

  test("Arabic-Indic digits, a currency sign after the number, Korean 만 and 억, number words of Korean, Arabic, Hebrew and Greek (issue 22)", () => {
    expect(differ("كم سعرة في ٣ تفاحات؟", "كم سعرة في 3 تفاحات؟")).toBeNull();
    expect(differ("كم سعرة في ٣ تفاحات؟", "كم سعرة في ٤ تفاحات؟")).toBe("numbers");
    expect(differ("كم سعرة في ثلاث تفاحات؟", "كم سعرة في 3 تفاحات؟")).toBeNull();
    expect(differ("Un loyer de 800 € par mois", "Un loyer de 800 $ par mois")).toBe("numbers");
    expect(differ("Un loyer de 800 € par mois", "Un loyer de 800 euros par mois")).toBeNull();
    expect(differ("هل راتب 10 آلاف درهم جيد؟", "هل راتب 10000 درهم جيد؟")).toBeNull();
    expect(differ("월급 300만 원이면 괜찮나요?", "월급 3000000원이면 괜찮나요?")).toBeNull();
    expect(differ("월급 300만 원이면 괜찮나요?", "월급 300원이면 괜찮나요?")).toBe("numbers");
    expect(differ("사과 3개는 몇 칼로리인가요?", "사과 3개의 칼로리를 알려 주세요.")).toBeNull();
    expect(differ("사과 두 개는 몇 칼로리인가요?", "사과 세 개는 몇 칼로리인가요?")).toBe("numbers");
    expect(differ("כמה זמן לבשל שלוש ביצים?", "כמה זמן לבשל ארבע ביצים?")).toBe("numbers");
    expect(differ("Πόσες θερμίδες έχουν τρία αυγά;", "Πόσες θερμίδες έχουν 3 αυγά;")).toBeNull();
    // a unit word after the number, Korean with its particle: 3시간 is not 3분
    expect(differ("서울에서 부산까지 3시간 걸리나요?", "서울에서 부산까지 3분 걸리나요?")).toBe("numbers");
    expect(differ("3시간이면 충분한가요?", "3시간에 충분한가요?")).toBeNull();
    expect(differ("هل تكفي 3 ساعات؟", "هل تكفي 3 دقائق؟")).toBe("numbers");
    expect(differ('משכורת של 15,000 ש"ח', "משכורת של 15,000 שקלים")).toBeNull();
    expect(differ('משכורת של 15,000 ש"ח', "משכורת של 15,000 $")).toBe("numbers");
  });

  test("Korean has no apostrophes; a Latin word glued to a Korean particle is still that word; Greek question words are no names", () => {
    expect(differ("'그림의 떡' 뜻이 뭐예요?", "'그림의 떡'의 의미를 알려 주세요.")).toBeNull();
    expect(differ("'그림의 떡' 뜻이 뭐예요?", "'눈엣가시'의 의미를 알려 주세요.")).toBe("quoted");
    expect(differ("서울에서 부산까지 KTX로 얼마나 걸리나요?", "KTX를 타면 서울에서 부산까지 몇 시간 걸려요?")).toBeNull();
    expect(differ("Πόσους κατοίκους έχει η Αθήνα;", "Πόσοι άνθρωποι ζουν στην Αθήνα;")).toBeNull();
  });

  test("words that look like negations or weekdays but are not", () => {
    expect(differ("O que há de novo no Python 3.12?", "Quais são as novidades do Python 3.12?")).toBeNull();
    expect(differ("¿Por qué mi perro no come?", "¿Por qué mi perro come?")).toBe("negations");
    expect(differ("средний балл среди студентов", "средний балл студентов")).toBeNull();
    expect(differ("Музей работает в среду?", "Музей работает в четверг?")).toBe("dates");
  });

  test("German nouns are not names; German cities are", () => {
    expect(differ("Wie viele Einwohner hat Hamburg?", "Wie groß ist die Einwohnerzahl von Hamburg?")).toBeNull();
    expect(differ("Wie viele Einwohner hat Hamburg?", "Wie groß ist die Einwohnerzahl von Bremen?")).toBe("names");
    // a known place on one side only is a name; another noun on one side only is not
    expect(differ("Wie viele Einwohner hat die Stadt?", "Wie viele Einwohner hat die Stadt Bremen?")).toBe("names");
    expect(differ("Wie ist das Wetter im Sommer?", "Wie ist das Wetter in Österreich im Sommer?")).toBe("names");
    expect(differ("Wie ist das Wetter im Sommer?", "Wie ist das Wetter im Sommer am Meer?")).toBeNull();
  });

  test("Hebrew gershayim quote nothing: ארה\"ב is an abbreviation; after a prefix a mark quotes", () => {
    expect(differ('כמה עולה "אייפון" בארה"ב ובצה"ל?', 'כמה עולה "אייפון" בארצות הברית ובצה"ל?')).toBeNull();
    expect(differ('כמה עולה ה"אייפון" בארה"ב?', 'כמה עולה ה"גלקסי" בארה"ב?')).toBe("quoted");
  });

  test("apostrophes quote nothing; a code fence is not a quoted term", () => {
    expect(differ("What's the meaning of l'esprit de l'escalier?", "What is the meaning of l'esprit de l'escalier?")).toBeNull();
    expect(differ("Why does ```x = 1``` fail?", "Why does this fail: ```x = 1```?")).toBeNull();
  });
});

describe("guard on repeated, large and hostile input", () => {
  test("a question read again is not read twice, and an evicted one is read the same way", () => {
    const q = "How many moons does Jupiter have in 2023?";
    const facts = guardEntities(q);
    expect(guardEntities(q)).toBe(facts);
    for (let i = 0; i < 300; i++) guardEntities(`Question number ${i}?`);
    const again = guardEntities(q);
    expect(again).not.toBe(facts);
    expect(again).toEqual(facts);
  });

  test("thousands of quote marks, apostrophes, digits and Han characters: it answers", () => {
    const hostile = `${'""'.repeat(5000)}${"'a ".repeat(5000)}${"1,".repeat(5000)}${"北京".repeat(5000)}${"x".repeat(20000)}`;
    const facts = guardEntities(hostile);
    expect(facts.quoted.length).toBeLessThanOrEqual(24);
    expect(disagreement(facts, guardEntities(`${hostile}2`))).not.toBeNull();
  });

  test("thousands of Korean, Arabic and Hebrew words, places and negations: it answers, and one changed place still differs", () => {
    const words = (n: number, w: string): string => Array.from({ length: n }, (_, i) => `${w}${i % 7 === 0 ? "" : i}`).join(" ");
    const long = `${words(4000, "서울에서")} ${words(4000, "بالقاهرة")} ${words(4000, "בירושלים")} ${"ولا ".repeat(2000)} ${"안 ".repeat(2000)}`;
    const facts = guardEntities(long);
    expect(facts.places).toEqual(["cairo", "jerusalem", "seoul"]);
    expect(disagreement(facts, guardEntities(`${long} 부산`))).toBe("names");
  });

  test("thousands of distinct Han characters on both sides: the names check answers", () => {
    const han = Array.from({ length: 4000 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20000))).join("");
    const other = [...han].reverse().join("").slice(0, 3000) + "北京";
    expect(disagreement(guardEntities(han), guardEntities(other))).toBe("names");
  });
});
