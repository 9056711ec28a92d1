// Builds the analyzer's word and substring tables once, at module load, from the data files.
import { CONSTRAINT_WORDS, STEP_WORDS } from "./complexity.ts";
import { EN_CUES } from "./cues-en.ts";
import { LATIN_CUES, OTHER_WORD_CUES, SUBSTRING_CUES } from "./cues-intl.ts";
import { AMBIGUOUS_MONTHS, DATE_WORDS, MONTHS, NEGATIONS, SUBSTRING_DATE_WORDS, SUBSTRING_NEGATIONS } from "./entities.ts";
import { STOPWORDS } from "./language.ts";
import {
  F_CONSTRAINT, F_DATEWORD, F_FIRST, F_LIVE_STRONG, F_LIVE_WEAK, F_MONTH, F_MONTH_AMBIG, F_NEG, F_NOT_NAME,
  F_PERSONAL, F_PNOUN, F_POSS, F_STEP, LATIN_LANGS, LEXICON, addCues, addFlags, addLanguageHint, addStopwords, indexSubstrings, markReferences,
} from "./lexicon.ts";
import { LIVE_STRONG, LIVE_STRONG_SUBSTRINGS, LIVE_WEAK, LIVE_WEAK_SUBSTRINGS, RELATIVE_DATES } from "./live-data.ts";
import { buildWordTable } from "./word-table.ts";
import { FIRST_PERSON, PERSONAL_NOUNS, PERSONAL_PHRASES, PERSONAL_SUBSTRINGS, POSSESSIVES, REFERENCE_NOUNS, REFERENCE_SUBSTRINGS } from "./personal.ts";

addCues(EN_CUES);
for (const lang of LATIN_LANGS) {
  if (lang === "en") continue;
  addCues(LATIN_CUES[lang], lang);
}
addCues(OTHER_WORD_CUES);
addCues(SUBSTRING_CUES, undefined, true);
for (const lang of LATIN_LANGS) addStopwords(lang, STOPWORDS[lang]);
addLanguageHint(EN_CUES, "en", 0.3);

for (const list of Object.values(NEGATIONS)) addFlags(F_NEG, list);
addFlags(F_NEG, SUBSTRING_NEGATIONS, true);
for (const list of Object.values(LIVE_STRONG)) addFlags(F_LIVE_STRONG, list);
for (const list of Object.values(LIVE_WEAK)) addFlags(F_LIVE_WEAK, list);
addFlags(F_LIVE_STRONG, RELATIVE_DATES);
addFlags(F_LIVE_STRONG, LIVE_STRONG_SUBSTRINGS, true);
addFlags(F_LIVE_WEAK, LIVE_WEAK_SUBSTRINGS, true);
addFlags(F_POSS, POSSESSIVES);
addFlags(F_FIRST, FIRST_PERSON);
for (const list of Object.values(PERSONAL_NOUNS)) addFlags(F_PNOUN, list);
addFlags(F_PERSONAL, PERSONAL_PHRASES);
addFlags(F_PERSONAL, PERSONAL_SUBSTRINGS, true);
addFlags(F_PNOUN, REFERENCE_SUBSTRINGS, true);
addFlags(F_MONTH, MONTHS);
addFlags(F_MONTH | F_MONTH_AMBIG, AMBIGUOUS_MONTHS);
addFlags(F_DATEWORD, DATE_WORDS);
addFlags(F_DATEWORD, SUBSTRING_DATE_WORDS, true);
addFlags(F_CONSTRAINT, `${CONSTRAINT_WORDS.en}, ${CONSTRAINT_WORDS.intl}`);
addFlags(F_STEP, `${STEP_WORDS.en}, ${STEP_WORDS.intl}`);
addFlags(F_NOT_NAME, "ok, okay, please, thanks, hi, hello, hey, dear, yes, no, note, important, q, a, tl, dr, ps, fyi, asap, etc");
/** Whether F_REFERENCE marks the reference nouns (markReferences). */
export const REFERENCES_MARKED = markReferences(REFERENCE_NOUNS);
indexSubstrings();
export const WORD_TRIE = buildWordTable(LEXICON);

export { LEXICON, SUBSTRING_FIRST, SUBSTRING_LISTS } from "./lexicon.ts";
export { CONTINUES, WORD_ENTRY, findWord, phraseEntry } from "./word-table.ts";
