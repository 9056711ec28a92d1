// Complexity (low | medium | high) for routing's required quality: input size, constraints and
// steps the prompt sets, list items, code blocks, math notation and the task itself.
import type { TaskKind } from "./kinds.ts";

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
}

/** Kinds that are at least medium whatever their length: multi-step work, and requests whose
 * material (an image, the tools' results) is not in the text that is measured. */
const TASK_POINTS: { readonly [K in TaskKind]?: number } = { reasoning: 2, math: 1, coding: 1, agent: 1, vision: 1 };

/** Points per feature; low 0, medium 1-3, high >= 4. Calibrated on the task corpus's training
 * files (docs/routing.md "Calibration"): the size of the input is the strongest single sign, and
 * a request of more than a sentence or two (over 100 bytes) is rarely one a small model does well. */
export function decideComplexity(task: TaskKind, subtype: string, inputTokensBound: number, f: ComplexityCounts): "low" | "medium" | "high" {
  let points = 0;
  const n = inputTokensBound;
  points += n >= 4000 ? 4 : n >= 1200 ? 3 : n >= 300 ? 2 : n > 100 ? 1 : 0;
  points += f.constraints >= 6 ? 2 : f.constraints >= 3 ? 1 : 0;
  points += f.listItems >= 6 ? 2 : f.listItems >= 3 ? 1 : 0;
  points += f.steps >= 3 ? 1 : 0;
  points += f.codeFences >= 2 ? 2 : f.codeFences >= 1 ? 1 : 0;
  points += f.mathMarks >= 3 ? 1 : 0;
  points += f.questions >= 3 ? 1 : 0;
  points += TASK_POINTS[task] ?? 0;
  if (task === "math" && subtype !== "arithmetic") points += 1; // proofs, calculus, statistics
  return points >= 4 ? "high" : points >= 1 ? "medium" : "low";
}
