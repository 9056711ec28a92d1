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

/** Multi-step work is at least medium whatever its length. */
const TASK_POINTS: { readonly [K in TaskKind]?: number } = { reasoning: 2, math: 1, coding: 1, agent: 1 };

/** Points per feature; low <= 1, medium 2-3, high >= 4. */
export function decideComplexity(task: TaskKind, subtype: string, inputTokensBound: number, f: ComplexityCounts): "low" | "medium" | "high" {
  let points = 0;
  const n = inputTokensBound;
  points += n >= 8000 ? 3 : n >= 2000 ? 2 : n >= 400 ? 1 : 0;
  points += f.constraints >= 6 ? 2 : f.constraints >= 3 ? 1 : 0;
  points += f.listItems >= 6 ? 2 : f.listItems >= 3 ? 1 : 0;
  points += f.steps >= 3 ? 1 : 0;
  points += f.codeFences >= 2 ? 2 : f.codeFences >= 1 ? 1 : 0;
  points += f.mathMarks >= 3 ? 1 : 0;
  points += f.questions >= 3 ? 1 : 0;
  points += TASK_POINTS[task] ?? 0;
  if (task === "math" && subtype !== "arithmetic") points += 1; // proofs, calculus, statistics
  if (task === "chat" || task === "classification") points -= 1;
  return points >= 4 ? "high" : points >= 2 ? "medium" : "low";
}
