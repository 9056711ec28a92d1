// Complexity (low | medium | high) for routing's required quality: the input's size for its kind,
// raised by constraints and steps the prompt sets, list items, code blocks and math notation.
import type { TaskKind } from "./kinds.ts";
import { S_ARABIC, S_CYRILLIC, S_DEVANAGARI, S_GREEK, S_HEBREW } from "./language.ts";

/** Words that set a requirement on the answer. */
export const CONSTRAINT_WORDS = {
  en: "must, should, shouldn't, need to, needs to, has to, have to, required, require, requirements, exactly, at least, at most, no more than, no less than, fewer than, less than, more than, maximum, minimum, max, min, only, ensure, make sure, avoid, include, including, exclude, excluding, without, limit, limited, strictly, always, never, each, every, format, formatted, constraint, constraints, assume, given, under, within, word limit, characters, in json, in markdown, bullet, table",
  intl: "doit, doivent, faut, exactement, au moins, au plus, maximum, minimum, uniquement, seulement, sans, muss, müssen, sollte, genau, mindestens, höchstens, nur, ohne, debe, deben, exactamente, al menos, como máximo, solo, sin, deve, devono, esattamente, almeno, al massimo, solo, senza, deve, devem, exatamente, pelo menos, no máximo, apenas, sem, moet, moeten, precies, minstens, hoogstens, alleen, zonder, должен, должна, ровно, минимум, максимум, только, без",
};

export const STEP_WORDS = {
  en: "first, firstly, second, secondly, third, then, next, after that, afterwards, finally, lastly, step, steps, stage, phase, part, subsequently",
  intl: "d'abord, ensuite, puis, enfin, étape, zuerst, dann, danach, schließlich, schritt, primero, luego, después, finalmente, paso, prima, poi, dopo, infine, passo, primeiro, depois, finalmente, passo, eerst, daarna, vervolgens, ten slotte, stap, сначала, затем, потом, наконец, шаг",
};

/** What the scan counted (its Signals). */
export interface ComplexityCounts {
  constraints: number;
  steps: number;
  listItems: number;
  codeFences: number;
  mathMarks: number;
  questions: number;
  /** Letters per script bucket (language.ts). */
  scripts: Int32Array;
}

/** Per kind, the input size below which a request is low and from which it is high (docs/routing.md
 * "Calibration"), fitted on the task corpus's training files: a request a small model does well is
 * short for its kind, and what is long differs by kind (a summary brings its text, a question not).
 * The size is the input's byte bound with non-Latin letters counted once (the byte bound counts two
 * or three), so a Russian or Hindi prompt is not taken for a longer English one. */
const SIZE: { readonly [K in TaskKind]: readonly [low: number, high: number] } = {
  agent: [50, 160], chat: [70, 440], classification: [120, 360], coding: [80, 250], creative: [80, 200],
  extraction: [150, 400], math: [60, 175], qa: [55, 170], reasoning: [30, 220], summarization: [240, 30_000],
  translation: [110, 290], vision: [45, 115],
};
const LEVELS = ["low", "medium", "high"] as const;

/** Signs of a demanding request whatever its size: constraints, list items, steps, code blocks,
 * math notation, several questions, non-arithmetic maths. Two of them raise the level by one. */
function signsOf(task: TaskKind, subtype: string, f: ComplexityCounts): number {
  let signs = f.constraints >= 6 ? 2 : f.constraints >= 3 ? 1 : 0;
  signs += f.listItems >= 6 ? 2 : f.listItems >= 3 ? 1 : 0;
  signs += f.steps >= 3 ? 1 : 0;
  signs += f.codeFences >= 2 ? 2 : f.codeFences >= 1 ? 1 : 0;
  signs += f.mathMarks >= 3 ? 1 : 0;
  signs += f.questions >= 3 ? 1 : 0;
  if (task === "math" && subtype !== "arithmetic") signs += 1; // proofs, calculus, statistics
  return signs;
}

export function decideComplexity(task: TaskKind, subtype: string, inputTokensBound: number, f: ComplexityCounts): "low" | "medium" | "high" {
  const sc = f.scripts;
  // Greek, Cyrillic, Hebrew and Arabic letters are two UTF-8 bytes, Devanagari three.
  const n = inputTokensBound - (sc[S_GREEK]! + sc[S_CYRILLIC]! + sc[S_HEBREW]! + sc[S_ARABIC]!) - 2 * sc[S_DEVANAGARI]!;
  const [low, high] = SIZE[task];
  const level = (n < low ? 0 : n >= high ? 2 : 1) + (signsOf(task, subtype, f) >= 2 ? 1 : 0);
  return LEVELS[Math.min(level, 2)]!;
}
