// Language detection (ISO 639-1, "und" when unknown): the script of the letters decides for
// non-Latin text; Latin text is told apart by stopwords and a few distinctive letters.
import { LATIN_LANGS, type LatinLang } from "./lexicon.ts";

/** Script buckets the scan counts letters into. */
export const S_LATIN = 1, S_GREEK = 2, S_CYRILLIC = 3, S_HEBREW = 4, S_ARABIC = 5, S_DEVANAGARI = 6;
export const S_THAI = 7, S_HANGUL = 8, S_KANA = 9, S_HAN = 10;
/** Extra counters in the same array: Ukrainian letters, Persian and Urdu letters. */
export const S_UK = 11, S_FA = 12, S_UR = 13;
export const SCRIPT_SLOTS = 14;
/** Class of a code unit below 0x2000: a script bucket, CLS_DIGIT, or 0 (not part of a word). */
export const CLS_DIGIT = 15;
export const CLASS = new Uint8Array(0x2000);

function mark(from: number, to: number, cls: number): void {
  for (let c = from; c <= to; c++) CLASS[c] = cls;
}
mark(0x30, 0x39, CLS_DIGIT);
mark(0x41, 0x5a, S_LATIN);
mark(0x61, 0x7a, S_LATIN);
CLASS[0x5f] = S_LATIN; // "_" joins identifiers
mark(0xc0, 0x24f, S_LATIN);
CLASS[0xd7] = 0; // ×
CLASS[0xf7] = 0; // ÷
mark(0x300, 0x36f, S_LATIN); // combining accents
mark(0x370, 0x3ff, S_GREEK);
CLASS[0x37e] = 0; // Greek question mark
CLASS[0x387] = 0;
mark(0x400, 0x52f, S_CYRILLIC);
mark(0x591, 0x5f4, S_HEBREW);
CLASS[0x5be] = 0;
CLASS[0x5c0] = 0;
CLASS[0x5c3] = 0;
mark(0x600, 0x6ff, S_ARABIC);
for (const c of [0x60c, 0x61b, 0x61f, 0x66a, 0x66b, 0x66c, 0x66d, 0x6d4]) CLASS[c] = 0;
mark(0x660, 0x669, CLS_DIGIT);
mark(0x750, 0x77f, S_ARABIC);
mark(0x900, 0x97f, S_DEVANAGARI);
CLASS[0x964] = 0;
CLASS[0x965] = 0;
mark(0x966, 0x96f, CLS_DIGIT);
mark(0xe00, 0xe7f, S_THAI);
mark(0x1100, 0x11ff, S_HANGUL);
mark(0x1e00, 0x1eff, S_LATIN);

/** Letters of scripts matched by substring (no spaces between words): not word characters. */
export const isWordClass = (cls: number): boolean => cls !== 0 && cls !== S_THAI && cls !== S_HANGUL;

/** Script of a code unit at or above 0x2000 (CJK and Hangul live there); 0 otherwise. */
export function wideScript(c: number): number {
  if (c >= 0x4e00 && c <= 0x9fff) return S_HAN;
  if (c >= 0x3040 && c <= 0x30ff) return S_KANA;
  if (c >= 0xac00 && c <= 0xd7af) return S_HANGUL;
  if ((c >= 0x3400 && c <= 0x4dbf) || (c >= 0xf900 && c <= 0xfaff)) return S_HAN;
  if (c >= 0x3130 && c <= 0x318f) return S_HANGUL;
  if (c >= 0xff66 && c <= 0xff9f) return S_KANA;
  return 0;
}

const SCRIPT_LANG: Record<number, string> = {
  [S_GREEK]: "el", [S_CYRILLIC]: "ru", [S_HEBREW]: "he", [S_ARABIC]: "ar", [S_DEVANAGARI]: "hi",
  [S_THAI]: "th", [S_HANGUL]: "ko", [S_KANA]: "ja", [S_HAN]: "zh",
};

/** A CJK character carries about as much as two or three Latin letters. */
const WEIGHT = [0, 1, 1, 1, 1, 1, 1, 1, 2.5, 2.5, 2.5];

export function decideLanguage(scripts: Int32Array, latinScores: Float64Array): string {
  let best = 0;
  let bestCount = 0;
  for (let s = S_GREEK; s <= S_HAN; s++) {
    const weighted = (scripts[s] ?? 0) * (WEIGHT[s] ?? 1);
    if (weighted > bestCount) {
      best = s;
      bestCount = weighted;
    }
  }
  // Japanese writes Han and kana together; Chinese never uses kana.
  const kana = scripts[S_KANA] ?? 0;
  if ((best === S_HAN || best === S_KANA) && kana > 0) {
    best = S_KANA;
    bestCount = (kana + (scripts[S_HAN] ?? 0)) * 2.5;
  }
  const latin = scripts[S_LATIN] ?? 0;
  let latinBest = -1;
  let latinScore = 0;
  for (let i = 0; i < LATIN_LANGS.length; i++) {
    const v = latinScores[i] ?? 0;
    if (v > latinScore) {
      latinBest = i;
      latinScore = v;
    }
  }
  const nonLatinWins = best !== 0 && (bestCount >= latin || latinScore === 0);
  if (nonLatinWins) return scriptLanguage(best, scripts);
  if (latinBest >= 0) return LATIN_LANGS[latinBest] ?? "und";
  return "und";
}

function scriptLanguage(script: number, scripts: Int32Array): string {
  if (script === S_CYRILLIC && (scripts[S_UK] ?? 0) > 0) return "uk";
  if (script === S_ARABIC && (scripts[S_UR] ?? 0) > 1) return "ur";
  if (script === S_ARABIC && (scripts[S_FA] ?? 0) > 1) return "fa";
  return SCRIPT_LANG[script] ?? "und";
}

/** Letters that point at one Latin language: its index in LATIN_LANGS (or -1) and a weight. */
export const HINT_LANG = new Int8Array(0x2000).fill(-1);
export const HINT_WEIGHT = new Float32Array(0x2000);
const LETTER_HINTS: ReadonlyArray<readonly [number, LatinLang, number]> = [
  [0xdf, "de", 1], [0xe4, "de", 0.5], [0xf6, "de", 0.5], [0xfc, "de", 0.5],
  [0xf1, "es", 1], [0xe3, "pt", 1], [0xf5, "pt", 1],
  [0x153, "fr", 1], [0xea, "fr", 0.5], [0xe2, "fr", 0.3], [0xee, "fr", 0.5], [0xfb, "fr", 0.5], [0xeb, "fr", 0.3], [0xe8, "fr", 0.3],
  [0xf2, "it", 0.5], [0xec, "it", 0.5],
];
for (const [c, lang, w] of LETTER_HINTS) {
  HINT_LANG[c] = LATIN_LANGS.indexOf(lang);
  HINT_WEIGHT[c] = w;
}
/** Inverted punctuation opens Spanish questions and exclamations. */
export const ES_MARKS = [0xbf, 0xa1];

/** Stopwords, plus each language's own names for languages ("in italiano" is asked in Italian). */
export const STOPWORDS: { readonly [L in LatinLang]: string } = {
  en: "the, a, an, and, or, of, to, in, is, are, was, were, be, been, this, that, these, those, it, its, it's, for, on, with, by, at, from, what, what's, how, why, who, which, when, where, can, could, would, should, do, does, did, you, your, i, i'm, my, me, we, our, please, about, have, has, not, will, there, they, them, if, then, than, into, some, any, all, just, like, don't, doesn't, can't, isn't, there's, here, out, up, get, make, give, tell, need, want, know, using, use, so, but, also, each, every, more, most, very, should, after, before, between",
  fr: "le, la, les, l', un, une, des, du, de, d', et, ou, est, sont, ce, cette, ces, cet, pour, dans, sur, avec, par, pas, que, qu', qui, quoi, je, j', tu, vous, nous, il, elle, ils, elles, mon, ma, mes, ton, ta, tes, votre, vos, notre, nos, son, sa, ses, au, aux, très, plus, mais, ne, n', être, avoir, c'est, j'ai, s'il, est-ce, en, y, a, leur, leurs, moi, toi, lui, aussi, comme, si, peux, pouvez, veux, voudrais, fais, faire, texte, ceci, cela, ça, où, déjà, entre, chez, sans, tout, tous, toutes, anglais, français, allemand, espagnol, italien, chinois, japonais",
  de: "der, die, das, den, dem, des, ein, eine, einen, einem, einer, und, oder, ist, sind, war, nicht, ich, du, sie, er, es, wir, ihr, mit, für, auf, zu, von, im, in, an, am, bitte, kannst, können, kann, mir, mich, mein, meine, wie, was, wer, wo, warum, auch, noch, nur, sehr, diese, dieser, dieses, diesen, aber, wenn, dass, als, bei, aus, nach, um, über, unter, zum, zur, hat, habe, haben, wird, werden, mal, einfach, gibt, geht, text, folgenden, soll, sollte, englisch, englische, englischen, deutsch, deutsche, französisch, spanisch, italienisch",
  es: "el, la, los, las, un, una, unos, unas, y, o, de, del, en, es, son, que, qué, para, por, con, como, cómo, esta, este, esto, estos, estas, mi, mis, tu, tus, su, sus, me, te, se, lo, le, les, no, sí, muy, más, pero, puedes, puede, favor, al, hay, está, están, ser, hacer, dame, yo, usted, nos, cuál, donde, cuando, sobre, entre, también, texto, siguiente, inglés, español, francés, alemán, italiano, chino, japonés",
  it: "il, lo, la, i, gli, le, un, uno, una, e, o, di, del, della, dei, delle, dello, da, in, nel, nella, è, sono, che, per, con, su, come, questo, questa, questi, queste, mi, ti, si, ci, non, più, molto, ma, puoi, può, al, alla, ai, essere, fare, dammi, io, tu, lei, anche, quale, dove, quando, sul, sulla, tra, fra, testo, seguente, inglese, italiano, francese, tedesco, spagnolo, cinese, giapponese",
  pt: "o, a, os, as, um, uma, uns, umas, e, ou, de, do, da, dos, das, em, no, na, nos, nas, é, são, que, para, por, com, como, este, esta, isto, esse, essa, isso, meu, minha, seu, sua, me, te, se, não, sim, muito, mais, mas, pode, podes, você, vocês, ao, à, aos, há, está, estão, ser, fazer, eu, nós, também, qual, onde, quando, sobre, entre, texto, seguinte, inglês, português, francês, alemão, espanhol, italiano, chinês, japonês",
  nl: "de, het, een, en, of, van, in, is, zijn, dat, die, dit, deze, voor, met, op, te, aan, niet, ik, je, jij, u, we, wij, mijn, jouw, uw, ons, wat, hoe, wie, waar, waarom, welke, ook, maar, als, bij, uit, naar, om, over, heb, hebt, heeft, hebben, wordt, worden, kun, kunt, kan, wil, alsjeblieft, graag, er, nog, al, zo, dan, tekst, volgende, geef, engels, nederlands, duits, frans, spaans, italiaans",
};

/** Letters that mark Ukrainian inside Cyrillic, Persian and Urdu inside Arabic script. */
export const SCRIPT_HINT = new Uint8Array(0x2000);
for (const c of [0x456, 0x457, 0x454, 0x491]) SCRIPT_HINT[c] = S_UK;
for (const c of [0x67e, 0x686, 0x698, 0x6af, 0x6a9, 0x6cc]) SCRIPT_HINT[c] = S_FA;
for (const c of [0x679, 0x688, 0x691, 0x6ba, 0x6d2]) SCRIPT_HINT[c] = S_UR;
