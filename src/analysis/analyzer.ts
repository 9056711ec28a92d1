// The content analyzer (trace `detected`, docs/api.md "Request detail"; docs/cache.md "Classification"):
// task, subtype, workload, language, complexity, needs, live data, personal data and entities from
// the last user message. Pure and allocation-light: it runs on every request.
import type { ChatMessage, ChatRequest } from "../canonical/chat.ts";
import { decideComplexity } from "./complexity.ts";
import type { Entities } from "./entities.ts";
import { isTaskKind, KIND_INDEX, type TaskKind } from "./kinds.ts";
import { decideLanguage } from "./language.ts";
import { decideLiveData } from "./live-data.ts";
import { scanOnce } from "./scan.ts";
import { classify, sharedFeatureBuffer, TASK_MODEL } from "./task-classifier.ts";
import { requestFeatures, windowText } from "./task-features.ts";
import { decideTask, subtypeOf } from "./task-rules.ts";
import { messageText } from "./tokens.ts";

export type { TaskKind } from "./kinds.ts";
export type { Entities } from "./entities.ts";
export { KINDS, SUBTYPES } from "./kinds.ts";
export { WINDOW_HEAD, WINDOW_TAIL, windowText } from "./task-features.ts";

export type Workload = "realtime" | "coding" | "batch" | "reasoning" | "content" | "support";

export interface AnalyzerHints {
  /** `metadata.task`: wins when it names a known kind. */
  task?: string;
  /** `metadata.priority`: realtime and batch set the workload. */
  priority?: "realtime" | "batch" | string;
  customerTier?: string;
  /** Upper bound of the input tokens (tokens.ts boundMessageTokens). */
  inputTokensBound: number;
}

export interface Analysis {
  task: TaskKind;
  subtype: string;
  source: "caller" | "detected";
  workload: Workload;
  /** ISO 639-1, "und" if unknown. */
  language: string;
  complexity: "low" | "medium" | "high";
  needs: { tools: boolean; vision: boolean; json: boolean; contextTokens: number };
  liveData: boolean;
  personal: boolean;
  entities: Entities;
}


/** Output tokens assumed when the request sets no max_tokens (sizes the context a model needs). */
const OUTPUT_ESTIMATE: { readonly [K in TaskKind]: number } = {
  coding: 1200, math: 700, reasoning: 1000, translation: 800, summarization: 400, extraction: 400,
  classification: 50, creative: 900, chat: 250, qa: 400, agent: 400, vision: 400,
};
export const expectedOutputTokens = (task: TaskKind): number => OUTPUT_ESTIMATE[task];

/** Workload by task when `priority` does not set it. Chat is interactive (realtime) unless it is
 * customer support; qa answers are short service answers (support). */
const TASK_WORKLOAD: { readonly [K in TaskKind]: Workload } = {
  coding: "coding", math: "reasoning", reasoning: "reasoning", agent: "reasoning",
  translation: "content", summarization: "content", creative: "content", vision: "content",
  extraction: "batch", classification: "batch", qa: "support", chat: "realtime",
};

const isImagePart = (type: string): boolean => type === "image_url" || type === "input_image" || type === "image";

function hasImage(message: ChatMessage): boolean {
  if (!Array.isArray(message.content)) return false;
  for (const part of message.content) if (isImagePart(part.type)) return true;
  return false;
}

function outputBudget(req: ChatRequest, task: TaskKind): number {
  const max = req.max_completion_tokens ?? req.max_tokens;
  return typeof max === "number" && max > 0 ? max : expectedOutputTokens(task);
}

export function analyzeRequest(req: ChatRequest, hints: AnalyzerHints): Analysis {
  const messages = req.messages;
  let lastUser: ChatMessage | undefined;
  let last = -1;
  let vision = false;
  let toolMessages = false;
  for (let k = 0; k < messages.length; k++) {
    const m = messages[k] as ChatMessage;
    if (m.role === "user") {
      lastUser = m;
      last = k;
      if (!vision && hasImage(m)) vision = true;
    } else if (m.role === "tool") toolMessages = true;
  }
  const tools = Array.isArray(req.tools) && req.tools.length > 0;
  const json = req.response_format?.type === "json_object" || req.response_format?.type === "json_schema";
  const window = lastUser ? windowText(messageText(lastUser)) : "";
  const signals = scanOnce(window);

  let task: TaskKind;
  let subtype: string;
  let source: "caller" | "detected" = "detected";
  if (tools) {
    task = "agent";
    const forced = req.tool_choice === "required" || typeof req.tool_choice === "object";
    subtype = messages.at(-1)?.role === "tool" ? "tool_result" : forced ? "forced_tool" : "tool_use";
  } else if (vision) {
    task = "vision";
    subtype = subtypeOf(signals, "vision");
  } else {
    ({ task, subtype } = decideTask(signals));
    // The learned classifier decides from the words and the rules' evidence; the caller's word wins.
    if (window.length > 0 && !isTaskKind(hints.task)) {
      const rules = task;
      requestFeatures(sharedFeatureBuffer, window, signals, KIND_INDEX.get(rules) ?? -1, messages, last, json, TASK_MODEL.options);
      task = classify(TASK_MODEL, sharedFeatureBuffer);
      if (task !== rules) subtype = subtypeOf(signals, task);
    }
  }
  if (isTaskKind(hints.task)) {
    source = "caller";
    if (hints.task !== task) {
      task = hints.task;
      subtype = subtypeOf(signals, task);
    }
  }

  let workload = TASK_WORKLOAD[task];
  if (hints.priority === "realtime" || hints.priority === "batch") workload = hints.priority;
  else if ((task === "chat" && subtype === "support") || (hints.customerTier && (task === "chat" || task === "qa"))) workload = "support";

  const complexity = decideComplexity(task, subtype, hints.inputTokensBound, signals);

  return {
    task,
    subtype,
    source,
    workload,
    language: decideLanguage(signals.scripts, signals.langScores),
    complexity,
    needs: {
      tools,
      vision,
      json,
      contextTokens: hints.inputTokensBound + outputBudget(req, task),
    },
    liveData: decideLiveData(signals.live, toolMessages, task),
    personal: signals.personal,
    entities: signals.entities,
  };
}
