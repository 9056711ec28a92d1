// The literal guard of a semantic cache hit (docs/semantic-cache.md "Literal guard"): numbers, ids,
// dates, e-mails, URLs, quoted strings, names and negations must match once normalised. Adds to the
// analyzer's extractor what a cache must not miss: every quoting style, units, number words, CJK.
import { newEntities, takeLinks, type Entities } from "../analysis/entities.ts";
import { scan } from "../analysis/scan.ts";
import { arabicDigits, caselessFacts, hasCaseless } from "./guard-caseless.ts";
import { cjkClash, cjkFacts, hasCjk, type CjkNames } from "./guard-cjk.ts";
import { LATIN_PLACES } from "./guard-gazetteer.ts";
import { bareNumber, foldNumber, multiplyOut, quantities, scaleWordNumbers } from "./guard-numbers.ts";
import { quotedStrings } from "./guard-quotes.ts";
import { GERMAN_WORDS, INTL_NUMBER_WORDS, INTL_OPENERS, PORTUGUESE_WORDS, RU_WEEKDAYS } from "./guard-words.ts";
import { oppositesClash } from "./guard-opposites.ts";
import { STOPWORDS } from "./semantic-text.ts";

export interface GuardEntities extends Entities {
  /** Every token holding a digit ("2x", "v3.12", "14"): versions and math the extractor files elsewhere or not at all. */
  digits: string[];
  /** Capitalised words opening a sentence ("Paris is..."): maybe names, maybe just the first word. */
  openers: string[];
  /** Lowercased words joined by single spaces, padded: a name must occur in the other question's text. */
  text: string;
  /** Katakana words and content Han characters: names in scripts without capitals. */
  cjk: CjkNames;
  /** Places and well-known people named in Korean, Arabic, Hebrew, Chinese or Japanese, as ids from
   * a gazetteer ("france", "einstein"): those scripts have no capitals to mark a name. */
  places: string[];
}

/** "numbers" covers ids too: "order #12345" and "order 12345" name the same order. */
export type GuardKind = "numbers" | "dates" | "emails" | "urls" | "quoted" | "names" | "negations";

/** Number words as the digits they mean, so "two" and "2" agree and "two" and "three" do not. "one",
 * "first", "second", "half" and the like are left out: they are pronouns, adverbs and units far
 * more often than counts ("one can...", "first, ...", "a second"). */
const NUMBER_WORDS = new Map(
  ("two:2 three:3 four:4 five:5 six:6 seven:7 eight:8 nine:9 ten:10 eleven:11 twelve:12 thirteen:13 " +
    "fourteen:14 fifteen:15 sixteen:16 seventeen:17 eighteen:18 nineteen:19 twenty:20 thirty:30 forty:40 fifty:50 " +
    "sixty:60 seventy:70 eighty:80 ninety:90 third:3rd fourth:4th fifth:5th sixth:6th seventh:7th eighth:8th ninth:9th tenth:10th")
    .split(" ")
    .map((pair): [string, string] => [pair.slice(0, pair.indexOf(":")), pair.slice(pair.indexOf(":") + 1)]),
);

/** Negation forms folded into the meanings that matter: "can't", "cannot", "unable", "without" and
 * "non-" all negate; "except" and "avoid" restrict. A word not listed keeps its own form. */
const NEGATION_CLASS = new Map<string, string>([
  ...("not no none nothing nobody nowhere neither nor never cannot cant unable without non lack lacks lacking " +
    "dont doesnt didnt isnt arent wasnt werent wont wouldnt shouldnt couldnt mustnt havent hasnt hadnt neednt w/o").split(" ").map((w): [string, string] => [w, "not"]),
  // the analyzer's words of scripts the guard reads itself (guard-caseless.ts), folded as those are
  ...("لا لم لن ليس بدون לא אין בלי δεν μην χωρίς 않 없 못 아니 말고").split(" ").map((w): [string, string] => [w, "not"]),
  ["except", "except"], ["excluding", "except"], ["exclude", "except"],
  ["avoid", "avoid"], ["prevent", "avoid"],
  // the extractor reports a phrase by its last word: "instead of", "rather than"
  ["of", "instead"], ["than", "instead"],
]);
/** What the analyzer's lists lack: contractions typed without their apostrophe among them. */
const EXTRA_NEGATIONS = /\b(?:unable|lacks?|lacking|prevent|w\/o|werent|wouldnt|shouldnt|couldnt|mustnt|havent|hasnt|hadnt|neednt)\b/g;

/** Imperatives and greetings that open a question capitalised without being names. */
const OPENERS = new Set(
  ("explain describe tell give list write show name define compare summarize summarise translate help find recommend suggest " +
    "provide create generate calculate convert check review fix edit rewrite draft proofread correct improve analyze analyse " +
    "solve compute estimate count identify classify extract rank sort plan outline design build send add remove delete " +
    "update change set use try imagine consider assume suppose please hi hello hey thanks ok okay yes best top difference").split(" "),
);

/** Words with their inner joiners, so "rename_column", "v2.10.0" and "don't" stay one token; a run of
 * Chinese, Japanese or Korean is a token of its own ("买3个" is "买", "3", "个"; "KTX를" is "KTX",
 * "를"), and so are "%" and a currency sign. */
const CJK = "\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\p{sc=Hangul}";
const LETTER = `(?:(?![${CJK}])[\\p{L}\\p{N}\\p{M}])+`;
const TOKEN = new RegExp(`[${CJK}ー々]+|[%$€£¥₹₪]|${LETTER}(?:[.,'\\-/:_]${LETTER})*`, "gu");
const HANGUL = /\p{sc=Hangul}/u;
/** The same without Chinese, Japanese or Korean in the text, and faster (no look-ahead per character). */
const TOKEN_PLAIN = /[%$€£¥₹₪]|[\p{L}\p{N}\p{M}]+(?:[.,'\-/:_][\p{L}\p{N}\p{M}]+)*/gu;

const unique = (values: Iterable<string>): string[] => [...new Set(values)].sort();
const APOSTROPHE_LIKE = /(\p{sc=Latin})[ʼ´`ʹ′](\p{sc=Latin})/gu;
const MAY_APOSTROPHE_LIKE = /[ʼ´`ʹ′]/;
const NEGATIVE = /(^|[([=:,]|\p{L}\s+)[-−](?=\d)/gu;
const MAY_NEGATIVE = /[-−]\d/;
/** After a currency sign, "m" is million ("$1.5M" = "$1,500,000"); without one it may be metres. */
const MAY_CURRENCY_M = /[$€£¥₹]\s?\d[\d.,]{0,20}\s?m/i;
const CURRENCY_M = /([$€£¥₹])\s?(\d{1,15}(?:[.,]\d{1,3}){0,5})\s?m(?![\p{L}\p{N}])/giu;
const million = (all: string, sign: string, num: string): string => {
  const value = multiplyOut(foldNumber(num), "e6");
  // with separators, as the extractor reads "$1,500,000" as an amount and "$1500000" as an id
  return value === null ? all : `${sign}${value.replace(/\B(?=(?:\d{3})+$)/g, ",")}`;
};
/** A quoted string as the words it holds, so "« break a leg. »" and ""Break a leg"" agree. */
const quotedWords = (q: string): string => [...q.toLowerCase().matchAll(TOKEN)].map((m) => m[0]).join(" ");

function negationClass(word: string): string {
  const w = word.toLowerCase();
  if (w.endsWith("n't")) return "not";
  return NEGATION_CLASS.get(w) ?? w;
}

function normalizeUrl(url: string): string {
  return url.toLowerCase().replace(/^https?:\/\//, "").replace(/^www\./, "").replace(/[/#?]+$/, "");
}

/** Names the extractor skips: words with a capital inside or all in capitals ("iPhone", "AWS"), and
 * capitalised sentence openers, kept apart because most of them are ordinary words. */
function extraNames(text: string, token: RegExp): { names: string[]; openers: string[] } {
  const names: string[] = [];
  const openers: string[] = [];
  for (const m of text.matchAll(token)) {
    const w = m[0];
    const at = m.index ?? 0;
    const lower = w.toLowerCase().replace(/'s$/, "");
    if (/\p{Ll}\p{Lu}/u.test(w) || (/^[\p{Lu}\d_]{2,}$/u.test(w) && /\p{Lu}.*\p{Lu}/u.test(w))) names.push(lower);
    else if (/^\p{Lu}/u.test(w) && (at === 0 || /[.!?:]\W{0,2}$/.test(text.slice(Math.max(0, at - 3), at)))) {
      const skip = STOPWORDS.has(lower) || OPENERS.has(lower) || INTL_OPENERS.has(lower) || NUMBER_WORDS.has(lower) || INTL_NUMBER_WORDS.has(lower) || negationClass(lower) !== lower || NEGATION_CLASS.has(lower);
      if (!skip) openers.push(lower);
    }
  }
  return { names, openers };
}

/** The facts of recent questions: a lookup compares the query with up to five stored questions, and
 * the same stored questions come back again and again. Insertion order evicts the oldest. */
const MEMO_SIZE = 256;
const MEMO_MAX_CHARS = 4096; // a semantic question is at most 500 tokens; longer text is not kept
const memo = new Map<string, GuardEntities>();

/** What the guard compares, computed once per question (the result is shared: do not change it). */
export function guardEntities(question: string): GuardEntities {
  const known = memo.get(question);
  if (known !== undefined) return known;
  const facts = computeFacts(question);
  if (question.length > MEMO_MAX_CHARS) return facts;
  if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value ?? "");
  memo.set(question, facts);
  return facts;
}

function computeFacts(question: string): GuardEntities {
  // Marks typed as apostrophes between Latin letters ("donʼt", "don´t", "don`t") become "'" before
  // NFKC, which would turn "´" into a space and an accent; NFKC makes full-width digits, letters and
  // quote marks the ASCII ones.
  const folded = arabicDigits((MAY_APOSTROPHE_LIKE.test(question) ? question.replace(APOSTROPHE_LIKE, "$1'$2") : question).normalize("NFKC"));
  // One apostrophe; code fences opened, so numbers inside code count like any other.
  // "or not" and "why or why not" ask both ways: they do not negate the question.
  const plain = folded
    .replace(/[’‘׳]/g, "'")
    .replace(/```/g, "\n")
    .replace(/\b(?:or|why or why) not\b/gi, " ")
    .replace(/(\d)\s*(?:percent|per cent)\b/gi, "$1%");
  // ש"ח, the shekel's abbreviation, is the sign ₪ (its mark would otherwise split it in two)
  const signs = plain.includes('ש"ח') || plain.includes("ש״ח") ? plain.replace(/ש["״]ח/g, "₪") : plain;
  const text = MAY_CURRENCY_M.test(signs) ? signs.replace(CURRENCY_M, million) : signs;
  const e = scan(text).entities;
  // Words outside links: a digit in a URL is the URL's business.
  // A sign makes another number ("at -40 degrees"); "5 - 3" is a subtraction, and stays as it was.
  const linkless = takeLinks(text, newEntities());
  const lowered = MAY_NEGATIVE.test(linkless) ? linkless.toLowerCase().replace(NEGATIVE, "$1neg") : linkless.toLowerCase();
  const hasCjkText = hasCjk(text);
  const caselessText = hasCaseless(text);
  const token = hasCjkText || (caselessText && HANGUL.test(text)) ? TOKEN : TOKEN_PLAIN;
  const tokens = [...lowered.matchAll(token)].map((m) => m[0]);
  const numberWord = (t: string): string | undefined => NUMBER_WORDS.get(t) ?? INTL_NUMBER_WORDS.get(t);
  const numberWords = tokens.flatMap((t) => numberWord(t) ?? []).concat(scaleWordNumbers(tokens, numberWord));
  const extraNeg = [...lowered.matchAll(EXTRA_NEGATIONS)].map((m) => m[0]);
  const extra = extraNames(linkless, token);
  const cjk = hasCjkText ? cjkFacts(text) : null;
  const caseless = caselessText ? caselessFacts(tokens) : null;
  const cyrillic = tokens.filter((t) => t.charCodeAt(0) >= 0x400 && t.charCodeAt(0) <= 0x4ff);
  const weekdays = cyrillic.flatMap((t) => RU_WEEKDAYS.flatMap((day, i) => (day.test(t) ? [`wd${i + 1}`] : [])));
  // German capitalises every noun: there a capitalised word counts only as an opener does.
  const german = tokens.some((t) => GERMAN_WORDS.has(t));
  const names = [...e.names.map((n) => n.toLowerCase().replace(/['’]s$/, ""))];
  return {
    // Without a unit or suffix: "digits" compares those, spelled one way ("60k" = "60 k").
    numbers: unique([...e.numbers, ...e.ids].map((n) => bareNumber(foldNumber(n), tokens)).concat(numberWords)),
    dates: unique(e.dates.map((d) => d.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((p) => p !== "" && p !== "of" && p !== "the").sort().join(" ")).concat(weekdays, cjk?.weekdays ?? [])),
    emails: unique(e.emails.map((m) => m.toLowerCase())),
    urls: unique(e.urls.map(normalizeUrl)),
    ids: [], // folded into numbers: "order #12345" and "order 12345" are the same order
    quoted: unique(quotedStrings(folded).map(quotedWords).filter((q) => q !== "")),
    names: unique(german ? extra.names : [...names, ...extra.names]),
    negations: unique([...e.negations, ...extraNeg, ...(caseless?.negations ?? [])].filter((w) => w !== "no" || !tokens.some((t) => PORTUGUESE_WORDS.has(t))).map(negationClass)),
    digits: unique(quantities(tokens).concat(numberWords, cjk?.numbers ?? [])),
    openers: unique(german ? [...extra.openers, ...names] : extra.openers),
    text: ` ${tokens.map((t) => t.replace(/'s$/, "")).join(" ")} `,
    cjk: { katakana: unique(cjk?.katakana ?? []), han: unique(cjk?.han ?? []), hanChars: unique(cjk?.hanChars ?? []) },
    places: unique([...(caseless?.places ?? []), ...(cjk?.places ?? [])]),
  };
}

const sameSet = (a: string[], b: string[]): boolean => a.length === b.length && a.every((v, i) => v === b[i]);
/** Every name of `a` occurs in `b`'s words: "Obama" agrees with "barack obama", whatever the case. */
const occurs = (name: string, b: GuardEntities): boolean => b.text.includes(` ${name} `);
/** Word by word, so "Python Library" agrees with "the library for Python". */
const namesOccur = (a: GuardEntities, b: GuardEntities): boolean =>
  a.names.every((n) => [...n.matchAll(TOKEN)].every((w) => occurs(w[0].replace(/'s$/, ""), b)));
/** Openers count as names only when both questions have one the other lacks ("John wants..." vs
 * "Mary wants..."); one alone is more likely a verb or an adverb ("Visit...", "Recently, ..."). */
const openersClash = (a: GuardEntities, b: GuardEntities): boolean =>
  (a.openers.some((n) => !occursLoosely(n, b)) && b.openers.some((n) => !occursLoosely(n, a))) || placeAlone(a, b) || placeAlone(b, a);
/** A known place is a name even on one side only ("...die Stadt Bremen?" vs "...die Stadt?"). */
const placeAlone = (a: GuardEntities, b: GuardEntities): boolean =>
  a.openers.some((n) => n.split(" ").some((w) => LATIN_PLACES.has(w) && !occursLoosely(w, b)));
/** An opener may be a compound's head or tail in the other question ("Einwohner", "Einwohnerzahl"). */
function occursLoosely(name: string, b: GuardEntities): boolean {
  if (occurs(name, b)) return true;
  if (name.length < 4) return false;
  return b.text.split(" ").some((w) => w.length >= 4 && (w.startsWith(name) || name.startsWith(w)));
}
/** Quoted strings agree when each one occurs, quoted or not, in the other question. */
const quotedIn = (a: GuardEntities, b: GuardEntities): boolean =>
  a.quoted.every((q) => b.quoted.includes(q) || (hasCjk(q) ? b.text.includes(q) : b.text.includes(` ${q} `)));

/** The first kind on which the two questions differ, or null when they agree. */
export function disagreement(a: GuardEntities, b: GuardEntities): GuardKind | null {
  if (!sameSet(a.numbers, b.numbers)) return "numbers";
  if (!sameSet(a.dates, b.dates)) return "dates";
  if (!sameSet(a.emails, b.emails)) return "emails";
  if (!sameSet(a.urls, b.urls)) return "urls";
  if (!quotedIn(a, b) || !quotedIn(b, a)) return "quoted";
  if (!namesOccur(a, b) || !namesOccur(b, a) || openersClash(a, b) || cjkClash(a.cjk, b.cjk) || !sameSet(a.places, b.places)) return "names";
  // A word reversed on one side ("install" / "uninstall", "enable" / "disable") negates as "not" does.
  if (!sameSet(a.negations, b.negations) || oppositesClash(a.text, b.text)) return "negations";
  // Last, so a changed date or id is reported as such: any other token with a digit ("2x", "v3").
  if (!sameSet(a.digits, b.digits)) return "numbers";
  return null;
}

export function agrees(a: GuardEntities, b: GuardEntities): boolean {
  return disagreement(a, b) === null;
}
