// What scored routing needs to know about a request (issue 5): its task, workload, complexity and
// the output it will likely produce. Derived from the analysis stage's results; `metadata.priority`
// (realtime, batch) overrides the workload (issue 5 item 8).
import type { TaskKind } from "./catalog-types.ts";
import type { Workload } from "./score.ts";

const TASK_WORKLOAD: Readonly<Record<string, Workload>> = {
  coding: "coding", math: "reasoning", reasoning: "reasoning", agent: "realtime", vision: "content",
  translation: "batch", summarization: "content", extraction: "batch", classification: "batch",
  creative: "content", chat: "support", qa: "support",
};

/** A typical answer length per task, the output bound when the caller gives no max_tokens. */
const EXPECTED_OUTPUT: Readonly<Record<string, number>> = {
  coding: 800, math: 500, reasoning: 900, agent: 300, vision: 300, translation: 600, summarization: 300,
  extraction: 250, classification: 30, creative: 700, chat: 200, qa: 300,
};

export const workloadOf = (task: string, priority: unknown): Workload =>
  priority === "realtime" || priority === "batch" ? priority : (TASK_WORKLOAD[task] ?? "support");

export const expectedOutputTokens = (task: string): number => EXPECTED_OUTPUT[task] ?? 300;

export function complexityOf(task: string, inputTokens: number): "low" | "medium" | "high" {
  if (task === "reasoning" || task === "math" || task === "coding") return inputTokens < 60 ? "medium" : "high";
  return inputTokens < 200 ? "low" : inputTokens < 4_000 ? "medium" : "high";
}

/** The catalog's task kinds are the detector's, "general" aside. */
export const taskKindOf = (task: string): TaskKind => (task === "general" ? "chat" : (task as TaskKind));
