// What the literal guard reads in Chinese and Japanese, where there are no spaces and no capitals
// (docs/semantic-cache.md "Literal guard"): numerals, weekdays, katakana words and the Han
// characters that carry content (names, places), each found in one pass.
import { CJK_PLACE_FORMS } from "./guard-gazetteer.ts";

export interface CjkFacts {
  /** Numerals as digits ("二十三" -> "23", "两" -> "2"); a lone "一" is left out (一下, 一样, 一起). */
  numbers: string[];
  /** "wd1".."wd7": 星期一, 周日, 月曜日... */
  weekdays: string[];
  /** Katakana runs: loanwords and foreign names (トヨタ, ソニー). */
  katakana: string[];
  /** Runs of two or more Han characters that are not grammar or question words (北京, 孔子, 人口):
   * names and places live here. */
  han: string[];
  /** Every such character, runs or not. */
  hanChars: string[];
  /** Place ids from the gazetteer, in Han or katakana ("東京" -> "tokyo"). */
  places: string[];
}

/** What the names check compares. */
export type CjkNames = Pick<CjkFacts, "katakana" | "han" | "hanChars">;

const DIGIT = new Map([..."〇零一二两兩三四五六七八九"].map((c, i): [string, number] => [c, [0, 0, 1, 2, 2, 2, 3, 4, 5, 6, 7, 8, 9][i] ?? 0]));
const UNIT = new Map<string, number>([["十", 10], ["百", 100], ["千", 1000]]);
const BIG = new Map<string, number>([["万", 1e4], ["萬", 1e4], ["亿", 1e8], ["億", 1e8]]);
const NUMERALS = /[〇零一二两兩三四五六七八九十百千万萬亿億]+/g;
const WEEKDAY_ZH = /(?:星期|礼拜|禮拜|周|週)([一二三四五六日天])/g;
const WEEKDAY_JA = /([月火水木金土日])曜/g;
const KATAKANA = /[\p{sc=Katakana}ー]{2,}/gu;
const HAN = /\p{sc=Han}+/gu;
const NUMERAL = new Set([..."〇零一二两兩三四五六七八九十百千万萬亿億"]);
const WEEKDAY_INDEX: Record<string, number> = { 一: 1, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 日: 7, 天: 7, 月: 1, 火: 2, 水: 3, 木: 4, 金: 5, 土: 6 };

/** Grammar, question words, pronouns, counters and calendar characters of Chinese and Japanese:
 * the characters that two wordings of one question swap freely. */
const HAN_STOP = new Set([
  ..."的是了在有和与或也就还要会能可以吗呢吧啊呀么什怎样为何哪谁多少几个些这那此其我你他她它们您请问让给把被对从到于之及等很太最更再又才只没不无非未别一下得着过如因所但而且即",
  ..."年号號时時分点點期曜",
  ..."私方何誰事物者的為於與這們個嗎說請問麼樣會還從對沒",
]);

const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u;
export const hasCjk = (text: string): boolean => CJK.test(text);

function numeralValue(run: string): number {
  let total = 0;
  let section = 0;
  let num = 0;
  for (const c of run) {
    const d = DIGIT.get(c);
    if (d !== undefined) {
      num = num * 10 + d; // "二〇二四" reads digit by digit
      continue;
    }
    const unit = UNIT.get(c);
    if (unit !== undefined) {
      section += (num === 0 ? 1 : num) * unit;
      num = 0;
      continue;
    }
    total += (section + num === 0 ? 1 : section + num) * (BIG.get(c) ?? 1);
    section = 0;
    num = 0;
  }
  return total + section + num;
}

export function cjkFacts(text: string): CjkFacts {
  const numbers: string[] = [];
  for (const m of text.matchAll(NUMERALS)) if (m[0] !== "一") numbers.push(String(numeralValue(m[0])));
  const weekdays: string[] = [];
  for (const m of text.matchAll(WEEKDAY_ZH)) weekdays.push(`wd${WEEKDAY_INDEX[m[1] ?? ""] ?? 0}`);
  for (const m of text.matchAll(WEEKDAY_JA)) weekdays.push(`wd${WEEKDAY_INDEX[m[1] ?? ""] ?? 0}`);
  const katakana = [...text.matchAll(KATAKANA)].map((m) => m[0]).filter((k) => k.replace(/ー/g, "") !== "");
  const han: string[] = [];
  const hanChars: string[] = [];
  const places = katakana.flatMap((k) => PLACES.get(k) ?? []);
  for (const m of text.matchAll(HAN)) {
    hanPlaces(m[0], places);
    let run = "";
    for (const c of m[0]) {
      const content = !HAN_STOP.has(c) && !NUMERAL.has(c);
      if (content) hanChars.push(c);
      if (content) run += c;
      else run = flush(han, run);
    }
    flush(han, run);
  }
  return { numbers, weekdays, katakana, han, hanChars, places };
}

const PLACES = new Map(CJK_PLACE_FORMS);
const PLACE_START = new Set(CJK_PLACE_FORMS.map(([f]) => f.charCodeAt(0)));
const PLACE_LONGEST = Math.max(...CJK_PLACE_FORMS.map(([f]) => f.length));

/** Places in a run of Han characters, the longest name from each position first; a position whose
 * character starts no name costs one set lookup. */
function hanPlaces(run: string, out: string[]): void {
  for (let i = 0; i < run.length - 1; i++) {
    if (!PLACE_START.has(run.charCodeAt(i))) continue;
    for (let len = Math.min(PLACE_LONGEST, run.length - i); len >= 2; len--) {
      const id = PLACES.get(run.slice(i, i + len));
      if (id === undefined) continue;
      out.push(id);
      i += len - 1;
      break;
    }
  }
}

function flush(runs: string[], run: string): string {
  if ([...run].length >= 2) runs.push(run);
  return "";
}

/** Names in scripts without capitals clash only when each question has one the other lacks: a
 * rewording adds a character or a loanword on one side far more often than it swaps a name. Sets
 * and one pass over each side's pairs, so a long question costs linear time. */
export function cjkClash(a: CjkNames, b: CjkNames): boolean {
  if (a.katakana.length + b.katakana.length + a.han.length + b.han.length === 0) return false;
  const [ka, kb] = [new Set(a.katakana), new Set(b.katakana)];
  if (a.katakana.some((k) => !kb.has(k)) && b.katakana.some((k) => !ka.has(k))) return true;
  const [ca, cb] = [new Set(a.hanChars), new Set(b.hanChars)];
  return newRun(a, cb, swaps(b, ca)) && newRun(b, ca, swaps(a, cb));
}

const pairs = (names: CjkNames): [string, string][] =>
  names.han.flatMap((run) => {
    const chars = [...run]; // by code point: rare Han characters lie outside the BMP
    return chars.slice(1).map((y, i): [string, string] => [chars[i] as string, y]);
  });

/** The pairs of `b` with one character new to `a`, as "<position kept>:<character kept>". */
function swaps(b: CjkNames, aChars: Set<string>): Set<string> {
  const out = new Set<string>();
  for (const [x, y] of pairs(b)) {
    if (!aChars.has(y)) out.add(`0:${x}`);
    if (!aChars.has(x)) out.add(`1:${y}`);
  }
  return out;
}

/** Two or more Han content characters in a row that the other question lacks (北京 / 上海), or a pair
 * with one character swapped for one the other lacks (孔子 / 孟子); one new character beside old
 * ones alone is more often a rewording (新機能 / 機能). */
function newRun(a: CjkNames, bChars: Set<string>, bSwaps: Set<string>): boolean {
  for (const [x, y] of pairs(a)) {
    const [newX, newY] = [!bChars.has(x), !bChars.has(y)];
    if (newX && newY) return true;
    if (newX !== newY && bSwaps.has(newX ? `1:${y}` : `0:${x}`)) return true;
  }
  return false;
}
