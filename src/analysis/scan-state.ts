// What one pass over a prompt collects (Signals) and the scanner's working state, shared by the
// scan loop (scan.ts), its word handling (scan-words.ts) and its punctuation handling (scan-marks.ts).
import { newEntities, type Entities } from "./entities.ts";
import { KINDS, SUB_NAMES } from "./kinds.ts";
import { SCRIPT_SLOTS } from "./language.ts";
import { LATIN_LANGS, type Entry } from "./lexicon.ts";

export interface Signals {
  /** Cue weight per kind (index in KINDS). */
  taskScores: Float64Array;
  /** Cue weight per subtype (index in SUB_NAMES). */
  subScores: Float64Array;
  /** Stopword evidence per Latin language (index in LATIN_LANGS). */
  langScores: Float64Array;
  /** Letters per script bucket (language.ts). */
  scripts: Int32Array;
  live: number;
  personal: boolean;
  digits: number;
  constraints: number;
  steps: number;
  listItems: number;
  codeFences: number;
  codeMarks: number;
  mathMarks: number;
  questions: number;
  questionEnd: boolean;
  words: number;
  entities: Entities;
  /** Length of the scanned text. */
  chars: number;
}

export interface ScanState extends Signals {
  /** The text with links blanked, original case; words are lowercased as they are read. */
  src: string;
  n: number;
  /** Cues between these offsets (pasted material, between the first and the last line or zone)
   * weigh less than those at the ends, where instructions sit. */
  headEnd: number;
  tailStart: number;
  sentenceStart: boolean;
  lineStart: boolean;
  /** Phrase heads (their nextKey) waiting for the next word, or -1; pend1 is set only with pend0. */
  pend0: number;
  pend1: number;
  wordIndex: number;
  lastPoss: number;
  lastFirst: number;
  /** Word index of the last personal noun in this sentence, and where the last account-like one
   * ended (characters): the owner or number after it makes the text personal (personal.ts). */
  lastPNoun: number;
  lastPNounEnd: number;
  lastRefEnd: number;
  quoteOpen: number;
  quoteCloser: number;
  /** The last token could be the left operand of a math operator. */
  mathPrev: boolean;
  lastNumEnd: number;
  lastNumStart: number;
  lastNumPushed: boolean;
  dateStart: number;
  dateEnd: number;
  dateIdx: number;
  nameStart: number;
  nameEnd: number;
  nameIdx: number;
}

/** Head and tail zones are at most this many characters. */
export const ZONE = 300;
/** Cues in the middle (between head and tail) are pasted material far more often than instructions. */
export const MIDDLE_WEIGHT = 0.3;

// The head is the first line, the tail the last line, each at most ZONE characters; a text
// without a line break is one line, so its last break need not be looked for.
const headEndOf = (src: string, firstBreak: number): number => Math.min(firstBreak < 0 ? src.length : firstBreak, ZONE);
const tailStartOf = (src: string, firstBreak: number): number => {
  const lastBreak = firstBreak < 0 ? -1 : src.lastIndexOf("\n");
  return Math.max(lastBreak < 0 ? 0 : lastBreak + 1, src.length - ZONE);
};

export function newState(src: string, entities: Entities = newEntities()): ScanState {
  const n = src.length;
  const firstBreak = src.indexOf("\n");
  const headEnd = headEndOf(src, firstBreak);
  const tailStart = tailStartOf(src, firstBreak);
  // One literal with every field, so every state shares one object shape.
  return {
    taskScores: new Float64Array(KINDS.length),
    subScores: new Float64Array(SUB_NAMES.length),
    langScores: new Float64Array(LATIN_LANGS.length),
    scripts: new Int32Array(SCRIPT_SLOTS),
    live: 0, personal: false, digits: 0, constraints: 0, steps: 0, listItems: 0, codeFences: 0, codeMarks: 0,
    mathMarks: 0, questions: 0, questionEnd: false, words: 0, entities, chars: src.length,
    src, n, headEnd, tailStart, sentenceStart: true, lineStart: true,
    pend0: -1, pend1: -1, wordIndex: 0, lastPoss: -99, lastFirst: -99, lastPNoun: -99, lastPNounEnd: -99, lastRefEnd: -99, quoteOpen: -1, quoteCloser: 0,
    mathPrev: false, lastNumEnd: -9, lastNumStart: -9, lastNumPushed: false, dateStart: -1, dateEnd: -9, dateIdx: -1,
    nameStart: -1, nameEnd: -9, nameIdx: -1,
  };
}

/** `s` as newState(src, entities) would make it, without allocating its arrays again. */
export function resetState(s: ScanState, src: string, entities: Entities): ScanState {
  const firstBreak = src.indexOf("\n");
  s.taskScores.fill(0);
  s.subScores.fill(0);
  s.langScores.fill(0);
  s.scripts.fill(0);
  s.live = 0; s.personal = false; s.digits = 0; s.constraints = 0; s.steps = 0; s.listItems = 0; s.codeFences = 0; s.codeMarks = 0;
  s.mathMarks = 0; s.questions = 0; s.questionEnd = false; s.words = 0; s.entities = entities; s.chars = src.length;
  s.src = src; s.n = src.length; s.headEnd = headEndOf(src, firstBreak); s.tailStart = tailStartOf(src, firstBreak); s.sentenceStart = true; s.lineStart = true;
  s.pend0 = -1; s.pend1 = -1; s.wordIndex = 0; s.lastPoss = -99; s.lastFirst = -99; s.lastPNoun = -99; s.lastPNounEnd = -99; s.lastRefEnd = -99;
  s.quoteOpen = -1; s.quoteCloser = 0;
  s.mathPrev = false; s.lastNumEnd = -9; s.lastNumStart = -9; s.lastNumPushed = false; s.dateStart = -1; s.dateEnd = -9; s.dateIdx = -1;
  s.nameStart = -1; s.nameEnd = -9; s.nameIdx = -1;
  return s;
}

/** Weight of evidence at `start`: less in the middle (pasted material) and inside quotes. */
export function zoneWeight(s: ScanState, start: number, quoted = 0.5): number {
  const m = start >= s.headEnd && start < s.tailStart ? MIDDLE_WEIGHT : 1;
  return s.quoteOpen >= 0 ? m * quoted : m;
}

/** Weight of a task cue at `start`: its zone weight, more at a sentence start (imperatives). */
export const cueWeight = (s: ScanState, start: number): number => zoneWeight(s, start) * (s.sentenceStart ? 1.5 : 1);
