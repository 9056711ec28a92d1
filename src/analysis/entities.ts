// Entities a semantic cache hit must agree on (docs/semantic-cache.md "Literal guard"): numbers, dates, e-mails, URLs,
// ids, quoted strings, names and negation words. The scan classifies tokens; this file owns the
// token rules and the word lists they need.

export interface Entities {
  numbers: string[];
  dates: string[];
  emails: string[];
  urls: string[];
  ids: string[];
  quoted: string[];
  names: string[];
  negations: string[];
}

/** Keeps each list short whatever the prompt: enough to compare two questions. */
export const MAX_PER_LIST = 24;

export const newEntities = (): Entities => ({
  numbers: [], dates: [], emails: [], urls: [], ids: [], quoted: [], names: [], negations: [],
});

export function pushUnique(list: string[], value: string): void {
  if (list.length < MAX_PER_LIST && !list.includes(value)) list.push(value);
}

// Links first, so the words inside them are not read as prose ("weather" in a URL is not a question).
const LINK = /\b(?:https?:\/\/|www\.)[^\s<>"'`)\]}]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;
const TRAILING = /[.,;:!?]+$/;
const MAY_LINK = /@|:\/\/|www\./;

/** Moves URLs and e-mail addresses into `entities` and blanks them out of the text. */
export function takeLinks(text: string, entities: Entities): string {
  // One regex pass costs less than three includes() on short texts.
  if (!MAY_LINK.test(text)) return text;
  return text.replace(LINK, (match) => {
    const link = match.replace(TRAILING, "");
    if (link.includes("@") && !link.includes("://")) pushUnique(entities.emails, link.toLowerCase());
    else pushUnique(entities.urls, link);
    return " ".repeat(match.length);
  });
}

export const T_NUMBER = 1, T_DATE = 2, T_ID = 3, T_MATH_VAR = 4;

const DATE = /^(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?:t\d{1,2}:\d{2}(?::\d{2})?)?|\d{1,2}[-/.]\d{1,2}[-/.](?:\d{4}|\d{2})|\d{1,2}:\d{2}(?::\d{2})?(?:am|pm)?|\d{1,2}(?:am|pm)|\d{4}-\d{2}|q[1-4]|(?:19|20)\d{2}s?)$/;
const NUMBER = /^\d+(?:[.,]\d+)*(?:[-–]\d+(?:[.,]\d+)?)?$/;
const FRACTION = /^\d+\/\d+$/;
const WITH_UNIT = /^\d+(?:[.,]\d+)?(?:st|nd|rd|th|er|e|ème|º|ª|k|m|bn|b|x|s|h|hr|hrs|min|mins|d|kg|g|mg|lb|lbs|oz|km|cm|mm|m2|m²|mi|ft|in|kb|mb|gb|tb|ms|px|pt|ml|l|hz|khz|mhz|ghz|mph|kmh|kw|kwh|w|v|mah|yo|usd|eur|gbp)$/;
const MATH_VAR = /^\d*(?:\.\d+)?[a-z]$/;
// A regex literal in a function body makes a RegExp per call: these two are made once.
const SEPARATOR = /[.,]/;

/** Kind of a token containing a digit, already lowercased. */
export function numericKind(token: string): number {
  if (NUMBER.test(token)) return token.length >= 7 && !SEPARATOR.test(token) ? T_ID : T_NUMBER;
  if (DATE.test(token)) return T_DATE;
  if (FRACTION.test(token) || WITH_UNIT.test(token)) return T_NUMBER;
  if (MATH_VAR.test(token)) return T_MATH_VAR;
  return T_ID;
}

const SMALL_NUMBER = /^\d{1,2}(?:st|nd|rd|th|er|\.)?$|^(?:19|20)\d{2}$/;
export const isSmallNumber = (token: string): boolean => SMALL_NUMBER.test(token);

export const NEGATIONS = {
  en: "not, no, never, none, nothing, nobody, nowhere, neither, nor, without, cannot, can't, cant, don't, dont, doesn't, doesnt, didn't, didnt, isn't, isnt, aren't, arent, wasn't, wasnt, weren't, won't, wont, wouldn't, shouldn't, couldn't, mustn't, haven't, hasn't, hadn't, except, excluding, exclude, avoid, instead of, rather than, non",
  fr: "ne, n', pas, jamais, aucun, aucune, sans, rien, ni, non, sauf, plus jamais",
  de: "nicht, kein, keine, keinen, keinem, keiner, keines, nie, niemals, ohne, nichts, weder, außer",
  es: "no, nunca, sin, ningún, ninguno, ninguna, nada, ni, jamás, tampoco, excepto, sino",
  it: "non, mai, senza, nessun, nessuno, nessuna, niente, nulla, né, tranne, eccetto",
  pt: "não, nunca, sem, nenhum, nenhuma, nada, nem, jamais, exceto",
  nl: "niet, geen, nooit, zonder, niets, noch, behalve",
  other: "не, нет, без, никогда, ни, ничего, кроме, δεν, μην, χωρίς, لا, لم, لن, ليس, بدون, לא, אין, בלי, नहीं, मत, बिना",
};
/** Negations in scripts without spaces, matched as substrings. */
export const SUBSTRING_NEGATIONS = "不, 没, 别, 无, 非, 未, ない, ません, なし, 無し, 以外, 않, 없, 못, 말고, 아니, ไม่";

export const MONTHS = "january, february, april, june, july, august, september, october, november, december, jan, feb, apr, jun, jul, aug, sep, sept, oct, nov, dec, janvier, février, avril, juin, juillet, août, septembre, octobre, novembre, décembre, januar, februar, märz, juni, juli, oktober, dezember, enero, febrero, marzo, abril, mayo, junio, julio, agosto, septiembre, octubre, noviembre, diciembre, gennaio, febbraio, aprile, maggio, giugno, luglio, settembre, ottobre, dicembre, janeiro, fevereiro, março, maio, junho, julho, setembro, outubro, novembro, dezembro, januari, februari, maart, mei, augustus, oktober, января, февраля, марта, апреля, мая, июня, июля, августа, сентября, октября, ноября, декабря";
/** Month names that are also common words: a date only next to a number. */
export const AMBIGUOUS_MONTHS = "may, march, mar, mars, mai, juin, juli, juni, augusti, avril";

export const DATE_WORDS = "today, tonight, tomorrow, yesterday, monday, tuesday, wednesday, thursday, friday, saturday, sunday, weekend, aujourd'hui, demain, lundi, mardi, mercredi, jeudi, vendredi, samedi, dimanche, heute, morgen, gestern, montag, dienstag, mittwoch, donnerstag, freitag, samstag, sonntag, hoy, mañana, ayer, lunes, martes, miércoles, jueves, viernes, sábado, domingo, oggi, domani, ieri, lunedì, martedì, mercoledì, giovedì, venerdì, sabato, hoje, amanhã, ontem, segunda-feira, terça-feira, quarta-feira, quinta-feira, sexta-feira, vandaag, gisteren, maandag, dinsdag, woensdag, donderdag, vrijdag, zaterdag, zondag, сегодня, завтра, вчера";
export const SUBSTRING_DATE_WORDS = "今天, 明天, 昨天, 今日, 明日, 昨日, 오늘, 내일, 어제, วันนี้, พรุ่งนี้";
