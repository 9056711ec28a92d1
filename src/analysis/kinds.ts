// The analyzer's fixed vocabularies: task kinds (routing catalog TASK_KINDS minus `general`) and the
// subtypes of each kind, logged as `task_subtype` and cache tag `subtype:<x>` (docs/cache.md "TTL and tags").

export const KINDS = [
  "coding", "math", "reasoning", "translation", "summarization", "extraction",
  "classification", "creative", "chat", "qa", "agent", "vision",
] as const;
export type TaskKind = (typeof KINDS)[number];

/**
 * Subtypes per kind; the first of each list is the default when nothing more specific shows.
 * - coding: code_generation, debugging (errors, stack traces), code_review, code_explanation,
 *   refactoring, test_writing, sql, shell (bash, terminal, devops commands)
 * - math: arithmetic, algebra, calculus, statistics (incl. probability), geometry, proof, word_problem
 * - reasoning: analysis, logic_puzzle, comparison (pros/cons, trade-offs), decision, planning
 * - translation: translate, localize (UI strings, i18n)
 * - summarization: summary, bullet_points (key points), short_summary (tl;dr, one line), meeting_notes
 * - extraction: structured_extraction (fields, JSON), entity_extraction (names, dates...), table_extraction
 * - classification: labeling, sentiment, moderation (spam, toxicity), intent, language_id
 * - creative: writing, poetry, story, copywriting, email (letters, messages), brainstorm, rewriting
 * - chat: conversation, greeting, small_talk, support (customer service), advice, roleplay
 * - qa: factual, definition, explanation, how_to, recommendation
 * - agent: tool_use, tool_result (continuing after tool output), forced_tool (tool_choice set)
 * - vision: image_description, ocr, chart, screenshot, visual_qa
 */
export const SUBTYPES: { readonly [K in TaskKind]: readonly string[] } = {
  coding: ["code_generation", "debugging", "code_review", "code_explanation", "refactoring", "test_writing", "sql", "shell"],
  math: ["arithmetic", "algebra", "calculus", "statistics", "geometry", "proof", "word_problem"],
  reasoning: ["analysis", "logic_puzzle", "comparison", "decision", "planning"],
  translation: ["translate", "localize"],
  summarization: ["summary", "bullet_points", "short_summary", "meeting_notes"],
  extraction: ["structured_extraction", "entity_extraction", "table_extraction"],
  classification: ["labeling", "sentiment", "moderation", "intent", "language_id"],
  creative: ["writing", "poetry", "story", "copywriting", "email", "brainstorm", "rewriting"],
  chat: ["conversation", "greeting", "small_talk", "support", "advice", "roleplay"],
  qa: ["factual", "definition", "explanation", "how_to", "recommendation"],
  agent: ["tool_use", "tool_result", "forced_tool"],
  vision: ["image_description", "ocr", "chart", "screenshot", "visual_qa"],
};

export const KIND_INDEX: ReadonlyMap<string, number> = new Map(KINDS.map((k, i) => [k, i]));

/** Subtypes flattened into one index space, so a scan keeps their scores in one typed array. */
export const SUB_NAMES: readonly string[] = KINDS.flatMap((k) => SUBTYPES[k]);
export const SUB_KIND: Uint8Array = Uint8Array.from(KINDS.flatMap((k, i) => SUBTYPES[k].map(() => i)));
/** Index of each kind's first (default) subtype in SUB_NAMES. */
export const SUB_START: Uint16Array = Uint16Array.from(KINDS.map((k) => SUB_NAMES.indexOf(SUBTYPES[k][0] ?? "")));

const SUB_INDEX = new Map<string, number>();
KINDS.forEach((k) => SUBTYPES[k].forEach((s) => SUB_INDEX.set(`${k}/${s}`, SUB_NAMES.indexOf(s, SUB_START[KIND_INDEX.get(k) ?? 0]))));

/** Index of `kind/subtype` in SUB_NAMES; throws at module load on a typo in the cue data. */
export function subIndex(kind: TaskKind, subtype: string): number {
  const i = SUB_INDEX.get(`${kind}/${subtype}`);
  if (i === undefined) throw new Error(`analysis: unknown subtype ${kind}/${subtype}`);
  return i;
}

export const isTaskKind = (value: unknown): value is TaskKind => typeof value === "string" && KIND_INDEX.has(value);
