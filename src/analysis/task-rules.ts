// Turns the scan's cue scores and structure (code fences, math notation, a closing question mark)
// into one task kind and subtype. Agent and vision are decided from the request, not the text.
import { KINDS, KIND_INDEX, SUBTYPES, SUB_NAMES, SUB_START, type TaskKind } from "./kinds.ts";
import type { Signals } from "./scan.ts";

/** Below this best score the text names no task: a question is qa, anything else chat. */
export const MIN_SCORE = 1.5;
/** A specific kind with at least this score wins over a generic qa or chat reading. */
export const SPECIFIC_FLOOR = 3;

/** On equal scores the more specific kind wins. */
const PRIORITY: readonly TaskKind[] = [
  "translation", "summarization", "extraction", "classification", "coding", "math", "creative", "reasoning", "qa", "chat",
];
const PRIORITY_INDEX = Int32Array.from(PRIORITY, (k) => KIND_INDEX.get(k) ?? 0);

const idx = (k: TaskKind): number => KIND_INDEX.get(k) ?? 0;
const CODING = idx("coding"), MATH = idx("math"), QA = idx("qa"), CHAT = idx("chat");
const GREETING = SUB_NAMES.indexOf("greeting"), SMALL_TALK = SUB_NAMES.indexOf("small_talk");
/** Small talk is short: in a longer message "Hi team" or "thanks" opens or closes pasted material. */
const SHORT_MESSAGE = 200;

/** Structure the words do not show: code, formulas, a question, a one-liner. */
function addStructure(s: Signals, scores: Float64Array): void {
  if (s.codeFences > 0) add(scores, CODING, 4 + Math.min(s.codeFences - 1, 2));
  if (s.codeMarks >= 3) add(scores, CODING, Math.min(s.codeMarks, 12) * 0.35);
  if (s.mathMarks > 0) add(scores, MATH, Math.min(s.mathMarks, 4) * 2);
  if (s.mathMarks > 0 && s.entities.numbers.length >= 2) add(scores, MATH, 1.5);
  if (s.questionEnd) add(scores, QA, 1.5);
  if (s.questionEnd && s.entities.numbers.length >= 2) add(scores, MATH, 1.5); // a question about several quantities
  if (s.words <= 6 && s.questions === 0) add(scores, CHAT, 1);
  if (s.chars > SHORT_MESSAGE) add(scores, CHAT, -0.75 * ((s.subScores[GREETING] ?? 0) + (s.subScores[SMALL_TALK] ?? 0)));
}

function add(scores: Float64Array, k: number, v: number): void {
  scores[k] = (scores[k] ?? 0) + v;
}

/** Adds the structural evidence to `s.taskScores` (the signals are consumed) and picks the kind. */
export function decideTask(s: Signals): { task: TaskKind; subtype: string } {
  const scores = s.taskScores;
  addStructure(s, scores);
  let best = -1;
  let bestScore = 0;
  for (let i = 0; i < PRIORITY_INDEX.length; i++) {
    const k = PRIORITY_INDEX[i] ?? 0;
    const v = scores[k] ?? 0;
    if (v > bestScore) {
      best = k;
      bestScore = v;
    }
  }
  // qa and chat are what a question or a remark is when nothing more specific shows: solid
  // evidence for a specific kind ("explain const vs let", "what are the second-order effects") wins.
  if (best === QA || best === CHAT) {
    let specific = -1;
    let specificScore = 0;
    for (let i = 0; i < PRIORITY_INDEX.length; i++) {
      const k = PRIORITY_INDEX[i] ?? 0;
      const v = scores[k] ?? 0;
      if (k !== QA && k !== CHAT && v > specificScore) {
        specific = k;
        specificScore = v;
      }
    }
    if (specificScore >= SPECIFIC_FLOOR && specificScore >= 0.5 * bestScore) {
      best = specific;
      bestScore = specificScore;
    }
  }
  if (best < 0 || bestScore < MIN_SCORE) {
    const task: TaskKind = s.questionEnd ? "qa" : "chat";
    return { task, subtype: subtypeAt(s, task, s.questionEnd ? QA : CHAT) };
  }
  const task = KINDS[best] ?? "chat";
  return { task, subtype: subtypeAt(s, task, best) };
}

/** The subtype with the most cue weight within `task`, else the kind's default (its first). */
export const subtypeOf = (s: Signals, task: TaskKind): string => subtypeAt(s, task, idx(task));

/** subtypeOf() for the kind at index `k` of KINDS (`task`). */
function subtypeAt(s: Signals, task: TaskKind, k: number): string {
  const from = SUB_START[k] ?? 0;
  const count = SUBTYPES[task].length;
  let best = -1;
  let bestScore = 0;
  for (let i = from; i < from + count; i++) {
    const v = s.subScores[i] ?? 0;
    if (v > bestScore) {
      best = i;
      bestScore = v;
    }
  }
  if (best >= 0) return SUB_NAMES[best] ?? SUBTYPES[task][0] ?? "";
  if (task === "vision" && s.questionEnd) return "visual_qa";
  return SUBTYPES[task][0] ?? "";
}
