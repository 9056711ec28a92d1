// What the literal guard reads in Korean, Arabic, Hebrew and Greek (docs/semantic-cache.md "Literal
// guard"): place names from a gazetteer, found through Korean particles and Arabic and Hebrew
// prefixes, and the negations the analyzer's word list misses. Map lookups, a few per word.
import { PLACE_FORMS } from "./guard-gazetteer.ts";
import { UNITS } from "./guard-words.ts";

export interface CaselessFacts {
  /** Ids of places and well-known people ("france", "seoul", "einstein") named in Korean, Arabic or Hebrew. */
  places: string[];
  /** Negations, folded to "not" or "except". */
  negations: string[];
}

const MAY_CASELESS = /[\u0370-\u03ff\u0590-\u06ff\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]/;
export const hasCaseless = (text: string): boolean => MAY_CASELESS.test(text);

/** Arabic-Indic and Persian digits as ASCII ones, with the Arabic decimal and thousands separators
 * and percent sign ("١٥٫٥٪" is "15.5%"): NFKC leaves them as they are. */
const MAY_ARABIC_DIGIT = /[\u0660-\u066c\u06f0-\u06f9]/;
const ARABIC_DIGITS = /[\u0660-\u066c\u06f0-\u06f9]/g;
const digitOf = (c: string): string => {
  const code = c.charCodeAt(0);
  if (code >= 0x6f0) return String(code - 0x6f0);
  return code <= 0x669 ? String(code - 0x660) : code === 0x66a ? "%" : code === 0x66b ? "." : ",";
};
export const arabicDigits = (text: string): string => (MAY_ARABIC_DIGIT.test(text) ? text.replace(ARABIC_DIGITS, digitOf) : text);

/** Arabic as compared: no vowel marks or tatweel, one alef, final ى as ي and ة as ه. */
const AR_MARK = /[\u064b-\u065f\u0670\u0640]/;
const AR_MARKS = /[\u064b-\u065f\u0670\u0640]/g;
/** A letter's code, Arabic letters folded. */
function code(word: string, at: number): number {
  const c = word.charCodeAt(at);
  return c === 0x623 || c === 0x625 || c === 0x622 || c === 0x671 ? 0x627 : c === 0x649 ? 0x64a : c === 0x629 ? 0x647 : c;
}
function foldArabic(word: string): string {
  const bare = AR_MARK.test(word) ? word.replace(AR_MARKS, "") : word;
  let out = "";
  for (let i = 0; i < bare.length; i++) out += String.fromCharCode(code(bare, i));
  return out;
}
/** Hebrew without points; gershayim and quote marks ("ארה"ב") split a word, as the tokens do. */
const HE_FOLDS = /[\u0591-\u05c7"״]/;
const foldHebrew = (word: string): string => (HE_FOLDS.test(word) ? word.replace(/[\u0591-\u05c7]/g, "").replace(/["״]/g, " ") : word);
const same = (word: string): string => word;

const KO = new Map(PLACE_FORMS.ko);
const AR = new Map(PLACE_FORMS.ar.map(([f, id]): [string, string] => [foldArabic(f), id]));
const HE = new Map(PLACE_FORMS.he.map(([f, id]): [string, string] => [foldHebrew(f), id]));

/** Korean particles and copula endings a place name takes in a question (프랑스의, 서울에서는,
 * 서울입니다), then the suffixes that make a people, a language or a product of it (한국인, 중국어). */
const KO_PARTICLES = new Set(
  ("의 에 에서 에게 께 한테 은 는 이 가 을 를 로 으로 와 과 도 만 까지 부터 보다 처럼 이나 나 랑 이랑 하고 에는 에서는 에도 " +
    "에서도 으로는 로는 으로의 로의 에서의 이란 란 이라는 라는 인가요 입니까 입니다 이다 인지 이에요 예요 이야 야 인데 이고 과의 와의 " +
    "으로부터 로부터 보다는 까지는 부터는 만의 행 쪽 에선 엔 이랑은 이면 면 이라면").split(" "),
);
const KO_DERIVED = new Set(["인", "어", "산", "식", "계", "사람"]);
const AR_CONJ = new Set(["و", "ف"]);
const AR_PREP = new Set(["ب", "ل", "ك"]);
const HE_PREFIX = new Set([..."ושכבלמה"]);

const isHangul = (c: number): boolean => (c >= 0xac00 && c <= 0xd7af) || (c >= 0x1100 && c <= 0x11ff) || (c >= 0x3130 && c <= 0x318f);
const isArabic = (c: number): boolean => c >= 0x600 && c <= 0x6ff;
const isHebrew = (c: number): boolean => c >= 0x590 && c <= 0x5ff;

/** A unit word after a number, also with a Korean particle on it ("3시간이면" -> "h"). */
export function unitOf(token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  const unit = UNITS.get(token);
  if (unit !== undefined || !isHangul(token.charCodeAt(0))) return unit;
  for (const stem of koreanStems(token)) if (UNITS.has(stem)) return UNITS.get(stem);
  return undefined;
}

function koreanStems(word: string): string[] {
  const out = [word];
  for (let k = 1; k <= 4 && k < word.length; k++) if (KO_PARTICLES.has(word.slice(-k))) out.push(word.slice(0, -k));
  for (const stem of out.slice()) {
    for (let k = 1; k <= 2 && k < stem.length; k++) if (KO_DERIVED.has(stem.slice(-k))) out.push(stem.slice(0, -k));
  }
  return out;
}

/** و/ف "and", then ب/ل/ك "in, to, like" (لل is ل before ال): بالصين, وفرنسا, للهند. */
function arabicStems(word: string): string[] {
  const out = [word];
  if (word.length > 3 && AR_CONJ.has(word[0] ?? "")) out.push(word.slice(1));
  for (const w of out.slice()) {
    if (w.startsWith("لل") && w.length > 3) out.push(`ال${w.slice(2)}`);
    else if (w.length > 3 && AR_PREP.has(w[0] ?? "")) out.push(w.slice(1));
  }
  return out;
}

/** Up to three one-letter prefixes: ו, ש, כ, ב, ל, מ, ה (בצרפת, ומלונדון, שבירושלים). */
function hebrewStems(word: string): string[] {
  const out = [word];
  for (let i = 0; i < 3 && word.length - i > 2 && HE_PREFIX.has(word[i] ?? ""); i++) out.push(word.slice(i + 1));
  return out;
}

/** How each script is read: its forms, the stems of a word, its folding; and, to skip most words
 * without a lookup, the first two letters of every form (as one number) and where a stem may start. */
interface Script {
  map: Map<string, string>;
  stems: (word: string) => string[];
  fold: (word: string) => string;
  heads: Set<number>;
  /** First words of the forms of two words ("תל" of "תל אביב"). */
  firsts: Set<string>;
  offsets: number;
  /** Whether a letter may be a prefix at this position (Arabic: و/ف, then ب/ل/ك). */
  prefix: (letter: string, at: number) => boolean;
  /** What fold() removes or splits on (vowel marks, points, quote marks): rare. */
  marks: RegExp;
}
/** The first two letters as one number (Korean syllables are many), three in Arabic and Hebrew. */
const head = (word: string, at: number, three: boolean): number =>
  (code(word, at) * 65536 + code(word, at + 1)) * (three ? 65536 : 1) + (three ? code(word, at + 2) : 0);
function script(map: Map<string, string>, stems: Script["stems"], fold: Script["fold"], offsets: number, prefix: Script["prefix"], marks: RegExp): Script {
  const forms = [...map.keys()];
  const bare = (f: string): string => (fold === foldArabic && f.startsWith("ال") ? f.slice(2) : f);
  return { map, stems, fold, offsets, prefix, marks, heads: new Set(forms.map((f) => head(bare(f), 0, offsets > 1))), firsts: new Set(forms.filter((f) => f.includes(" ")).map((f) => f.slice(0, f.indexOf(" ")))) };
}
const KOREAN = script(KO, koreanStems, same, 1, () => false, /$^/);
const ARABIC = script(AR, arabicStems, foldArabic, 3, (c, at) => (at === 0 && AR_CONJ.has(c)) || AR_PREP.has(c), AR_MARK);
const HEBREW = script(HE, hebrewStems, foldHebrew, 4, (c) => HE_PREFIX.has(c), HE_FOLDS);
const scriptOf = (c: number): Script | null => (isHangul(c) ? KOREAN : isArabic(c) ? ARABIC : isHebrew(c) ? HEBREW : null);

/** A name of two words: Korean puts its particle on the second (스티브 잡스는). */
function secondWord(s: Script, first: string, after: string): string | undefined {
  const nexts = s === KOREAN ? koreanStems(after) : [s.fold(after)];
  for (const next of nexts) {
    const id = s.map.get(`${first} ${next}`);
    if (id !== undefined) return id;
  }
  return undefined;
}

/** The places and people named in `tokens` (the question's lowercased words, in order). */
function places(tokens: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    const s = scriptOf(t.charCodeAt(0));
    if (s === null || t.length < 2) continue;
    // Most words start with no form's first letters (after a prefix, and ال or لل in Arabic):
    // fold and look up only the others.
    const lead = s.marks.test(t) ? s.fold(t) : t; // head() folds Arabic letters itself
    let maybe = false;
    for (let at = 0; at < s.offsets && !maybe; at++) {
      if (at > 0 && !s.prefix(lead[at - 1] ?? "", at - 1)) break;
      const al = s === ARABIC && (lead.startsWith("ال", at) || lead.startsWith("لل", at));
      maybe = s.heads.has(head(lead, al ? at + 2 : at, s.offsets > 1)) || (al && s.heads.has(head(lead, at, true)));
    }
    if (!maybe) continue;
    const word = s.fold(t);
    const after = tokens[i + 1];
    for (const stem of s.stems(word)) {
      const two = after === undefined || !s.firsts.has(stem) ? undefined : secondWord(s, stem, after);
      const id = two ?? s.map.get(stem);
      if (id === undefined) continue;
      out.push(id);
      if (two !== undefined) i++;
      break;
    }
  }
  return out;
}

/** Negation words beyond the analyzer's list, each with its class. Arabic without vowel marks but
 * with its hamza (ألا "doesn't...?" is not إلا "except"). */
const NEGATION_WORDS = new Map<string, string>([
  ...`لا لم لن ليس ليست لست لسنا ليسوا ليسا لستم ولا فلا ولم فلم ولن فلن وليس وليست ألا ألن أليس أليست ولست
    بدون دون بلا وبدون وبلا غير وغير عدم وعدم بعدم لعدم أبدا مش مو
    לא ולא שלא כשלא הלא אין ואין שאין אינו אינה אינם אינן איני אינני אינך אינכם בלי ובלי שבלי ללא וללא מבלי שום כלום לעולם
    δεν δε μην μη όχι οχι ποτέ ποτε ούτε ουτε κανένας κανείς κανένα καμία τίποτα τίποτε χωρίς δίχως
    안 않 없 못 아니 마세요 마십시오 마라 말라 말아요 말아 말고 말자 마요`
    .split(/\s+/)
    .filter((w) => w !== "")
    .map((w): [string, string] => [w, "not"]),
  ...["إلا", "الا", "باستثناء", "سوى", "חוץ", "מלבד", "למעט", "εκτός"].map((w): [string, string] => [w, "except"]),
]);
const AR_WHY = new Set(["لماذا", "ليش", "ليه", "لمه"]);
const HE_NEVER = new Set(["פעם", "אחד", "אחת"]);
const IMPERFECT = /^[يتنأ]/;

function negations(tokens: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const raw = tokens[i] as string;
    const c = raw.charCodeAt(0);
    if (!isArabic(c) && !isHebrew(c) && !isHangul(c) && !(c >= 0x370 && c <= 0x3ff)) continue;
    const t = isArabic(c) && AR_MARK.test(raw) ? raw.replace(AR_MARKS, "") : raw;
    const next = tokens[i + 1] ?? "";
    const known = NEGATION_WORDS.get(t);
    if (known !== undefined) out.push(known);
    // ألم is "didn't...?" before a verb, else "pain"; ما after "why" is "not" (لماذا ما يعمل)
    else if (t === "ألم" && IMPERFECT.test(next)) out.push("not");
    else if (t === "ما" && AR_WHY.has(tokens[i - 1] ?? "")) out.push("not");
    // אל before a future verb is "don't" (אל תשכח), else "to"; אף פעם, אף אחד: never, nobody
    else if (t === "אל" && next.startsWith("ת")) out.push("not");
    else if (t === "אף" && HE_NEVER.has(next)) out.push("not");
    // 안 돼 written as one word; 말다 "not to" (마시지 말아야), not 마라톤 or 말 "horse"
    else if (t.startsWith("안되") || t.startsWith("안돼") || t.startsWith("말아")) out.push("not");
  }
  return out;
}

export function caselessFacts(tokens: readonly string[]): CaselessFacts {
  return { places: places(tokens), negations: negations(tokens) };
}
