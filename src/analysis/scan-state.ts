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
  /** Phrase continuations waiting for the next word. */
  pend0: Map<number, Entry> | null;
  pend1: Map<number, Entry> | null;
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

export function newState(src: string, entities: Entities = newEntities()): ScanState {
  const n = src.length;
  const firstBreak = src.indexOf("\n");
  const lastBreak = src.lastIndexOf("\n");
  // The head is the first line, the tail the last line, each at most ZONE characters.
  const headEnd = Math.min(firstBreak < 0 ? n : firstBreak, ZONE);
  const tailStart = Math.max(lastBreak < 0 ? 0 : lastBreak + 1, n - ZONE);
  // One literal with every field, so every state shares one object shape.
  return {
    taskScores: new Float64Array(KINDS.length),
    subScores: new Float64Array(SUB_NAMES.length),
    langScores: new Float64Array(LATIN_LANGS.length),
    scripts: new Int32Array(SCRIPT_SLOTS),
    live: 0, personal: false, digits: 0, constraints: 0, steps: 0, listItems: 0, codeFences: 0, codeMarks: 0,
    mathMarks: 0, questions: 0, questionEnd: false, words: 0, entities, chars: src.length,
    src, n, headEnd, tailStart, sentenceStart: true, lineStart: true,
    pend0: null, pend1: null, wordIndex: 0, lastPoss: -99, lastFirst: -99, lastPNoun: -99, lastPNounEnd: -99, lastRefEnd: -99, quoteOpen: -1, quoteCloser: 0,
    mathPrev: false, lastNumEnd: -9, lastNumStart: -9, lastNumPushed: false, dateStart: -1, dateEnd: -9, dateIdx: -1,
    nameStart: -1, nameEnd: -9, nameIdx: -1,
  };
}

/** Weight of evidence at `start`: less in the middle (pasted material) and inside quotes. */
export function zoneWeight(s: ScanState, start: number, quoted = 0.5): number {
  const m = start >= s.headEnd && start < s.tailStart ? MIDDLE_WEIGHT : 1;
  return s.quoteOpen >= 0 ? m * quoted : m;
}

/** Weight of a task cue at `start`: its zone weight, more at a sentence start (imperatives). */
export const cueWeight = (s: ScanState, start: number): number => zoneWeight(s, start) * (s.sentenceStart ? 1.5 : 1);
