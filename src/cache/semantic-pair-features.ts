// Features of a (query, stored question) pair for the learned hit decision (docs/semantic-cache.md
// "Hit decision"): one linear pass per question (memoised, as the guard's facts are), then set
// operations over at most MAX_TOKENS words, so a lookup stays cheap and bounded.
import { STOPWORDS, stem } from "./semantic-text.ts";

/** Only the start of a long question is read: a semantic question is at most ~500 tokens. */
const MAX_CHARS = 2000;
const MAX_TOKENS = 96;

const QUESTION_WORDS: ReadonlySet<string> = new Set(
  ("what which who whom whose when where why how que quoi qui pourquoi comment combien où quel quelle " +
    "was wer wie wo warum wann welche qué cuál quién cómo dónde cuándo cuánto quem onde quando quanto " +
    "что кто как где когда почему зачем сколько какой").split(" "),
);
/** Auxiliaries folded by lemma: "does"/"did" are "do"; a change of tense or person shows up as a change. */
const AUXILIARIES: ReadonlyMap<string, string> = new Map(
  ("do:do does:do did:do is:be are:be was:be were:be am:be be:be been:be have:have has:have had:have " +
    "will:will would:would shall:shall should:should can:can could:could may:may might:might must:must")
    .split(" ")
    .map((p): [string, string] => [p.slice(0, p.indexOf(":")), p.slice(p.indexOf(":") + 1)]),
);
const MODALS: ReadonlySet<string> = new Set(["should", "must", "can", "could", "may", "might", "will", "would", "shall"]);
const PAST: ReadonlySet<string> = new Set(["did", "was", "were", "had"]);
const NEGATIONS: ReadonlySet<string> = new Set(["not", "no", "never", "t", "cannot", "without", "nor", "none"]);

/** One question's side of the features (computed once per question). */
export interface QuestionSide {
  /** Content words (stemmed, no function words), and CJK character bigrams. */
  content: ReadonlySet<string>;
  /** Pairs of consecutive content words, so "A into B" and "B into A" differ. */
  bigrams: ReadonlySet<string>;
  questionWords: ReadonlySet<string>;
  auxiliaries: ReadonlySet<string>;
  modals: number;
  past: number;
  negations: number;
  /** All words, function words included. */
  length: number;
}

const isCjk = (cp: number): boolean => (cp >= 0x3040 && cp <= 0x30ff) || (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0xac00 && cp <= 0xd7af);
/** Letters and digits of any script, by code point (NFKC has folded full-width forms to ASCII). */
const isWordChar = (cp: number): boolean =>
  (cp >= 48 && cp <= 57) || (cp >= 97 && cp <= 122) || (cp >= 0xc0 && cp !== 0xd7 && cp !== 0xf7 && !(cp >= 0x2000 && cp <= 0x2bff) && !(cp >= 0x3000 && cp <= 0x303f) && !(cp >= 0xfe30 && cp <= 0xfe4f) && !(cp >= 0xff00 && cp <= 0xff65));

/** Lowercased words in order; each CJK character is a word of its own. Bounded by MAX_TOKENS. */
export function tokens(text: string): string[] {
  const s = (text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text).normalize("NFKC").toLowerCase();
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i <= s.length && out.length < MAX_TOKENS; i++) {
    const cp = i < s.length ? (s.codePointAt(i) as number) : 32;
    const word = isWordChar(cp);
    if ((!word || isCjk(cp)) && start >= 0) {
      out.push(s.slice(start, i));
      start = -1;
    }
    if (word && isCjk(cp)) out.push(String.fromCodePoint(cp));
    else if (word && start < 0) start = i;
    if (cp > 0xffff) i++;
  }
  return out;
}

function sideOf(text: string): QuestionSide {
  const words = tokens(text);
  const content = new Set<string>();
  const bigrams = new Set<string>();
  const questionWords = new Set<string>();
  const auxiliaries = new Set<string>();
  let modals = 0;
  let past = 0;
  let negations = 0;
  let previous = "";
  let previousCjk = "";
  for (const w of words) {
    const cjk = w.length === 1 && isCjk(w.codePointAt(0) as number);
    if (cjk) {
      // Chinese and Japanese have no spaces: character pairs stand for words.
      if (previousCjk !== "") content.add(previousCjk + w);
      else content.add(w);
      previousCjk = w;
      continue;
    }
    previousCjk = "";
    if (QUESTION_WORDS.has(w)) questionWords.add(w);
    const aux = AUXILIARIES.get(w);
    if (aux !== undefined) auxiliaries.add(aux);
    if (MODALS.has(w)) modals++;
    if (PAST.has(w)) past++;
    if (NEGATIONS.has(w) || w.endsWith("n't")) negations++;
    if (STOPWORDS.has(w)) continue;
    const stemmed = stem(w);
    content.add(stemmed);
    if (previous !== "") bigrams.add(`${previous} ${stemmed}`);
    previous = stemmed;
  }
  return { content, bigrams, questionWords, auxiliaries, modals, past, negations, length: words.length };
}

const MEMO_SIZE = 256;
const memo = new Map<string, QuestionSide>();

/** A question's side, memoised for the last 256 questions (stored questions come back often). */
export function questionSide(text: string): QuestionSide {
  const known = memo.get(text);
  if (known !== undefined) return known;
  const side = sideOf(text);
  if (text.length > MAX_CHARS) return side;
  if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value ?? "");
  memo.set(text, side);
  return side;
}

function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): { shared: number; onlyA: number; onlyB: number; longOnly: number } {
  let shared = 0;
  let longOnly = 0;
  for (const w of a) {
    if (b.has(w)) shared++;
    else if (w.length >= 7) longOnly++;
  }
  for (const w of b) if (!a.has(w) && w.length >= 7) longOnly++;
  return { shared, onlyA: a.size - shared, onlyB: b.size - shared, longOnly };
}

const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => a.size === b.size && [...a].every((w) => b.has(w));

/** The names of the features, in the order pairFeatures returns them (the model's weights follow it). */
export const FEATURE_NAMES = [
  "cosine", "margin", "content_jaccard", "bigram_jaccard", "only_query", "only_stored", "substituted", "long_differing",
  "question_word_change", "auxiliary_change", "modal_change", "tense_change", "negation_change", "length_ratio",
  "cosine_x_jaccard",
] as const;

/** `cosine`: the index's similarity; `margin`: its lead over the nearest rival that also agrees on
 * literals (1 when none). Plain numbers, roughly in [0, 1] or small counts. */
export function pairFeatures(query: QuestionSide, stored: QuestionSide, cosine: number, margin: number): number[] {
  const c = overlap(query.content, stored.content);
  const union = c.shared + c.onlyA + c.onlyB;
  const jaccard = union === 0 ? 1 : c.shared / union;
  const b = overlap(query.bigrams, stored.bigrams);
  const bigramUnion = b.shared + b.onlyA + b.onlyB;
  return [
    cosine,
    Math.min(margin, 0.1) * 10,
    jaccard,
    bigramUnion === 0 ? 1 : b.shared / bigramUnion,
    Math.min(c.onlyA, 6),
    Math.min(c.onlyB, 6),
    Math.min(c.onlyA, c.onlyB, 4),
    Math.min(c.longOnly, 6),
    sameSet(query.questionWords, stored.questionWords) ? 0 : 1,
    sameSet(query.auxiliaries, stored.auxiliaries) ? 0 : 1,
    (query.modals > 0) === (stored.modals > 0) ? 0 : 1,
    (query.past > 0) === (stored.past > 0) ? 0 : 1,
    (query.negations > 0) === (stored.negations > 0) ? 0 : 1,
    Math.min(query.length, stored.length) / Math.max(1, query.length, stored.length),
    cosine * jaccard,
  ];
}
