// A first task detector (pure, keyword based) for the log's `task` and `task_subtype`. The routing
// issue replaces it with the full analyzer; `metadata.task` from the caller always wins.
import type { ChatRequest } from "../providers/types.ts";
import { messageText } from "./tokens.ts";

export interface DetectedTask {
  task: string;
  subtype: string;
  source: "caller" | "detected";
}

const RULES: ReadonlyArray<{ task: string; subtype: string; pattern: RegExp }> = [
  { task: "coding", subtype: "code_generation", pattern: /```|\b(function|class|def|typescript|javascript|python|rust|sql|regex|compile|bug|stack trace|refactor)\b/i },
  { task: "translation", subtype: "translate", pattern: /\btranslat(e|ion)\b|\bin (french|german|spanish|italian|japanese|chinese|english)\b/i },
  { task: "summarization", subtype: "summary", pattern: /\b(summari[sz]e|summary|tl;?dr|key points)\b/i },
  { task: "extraction", subtype: "structured_extraction", pattern: /\bextract\b|\bparse (the|this)\b/i },
  { task: "classification", subtype: "labeling", pattern: /\bclassif(y|ication)\b|\bsentiment\b|\bcategori[sz]e\b/i },
  { task: "math", subtype: "calculation", pattern: /\b(solve|equation|integral|derivative|calculate|probability)\b|\d+\s*[-+*/^]\s*\d+/i },
  { task: "creative", subtype: "writing", pattern: /\b(write|compose) (a|an|me) (poem|story|song|essay|haiku)\b/i },
  { task: "reasoning", subtype: "analysis", pattern: /\b(step by step|prove|explain why|reason about|pros and cons)\b/i },
];

/** The instruction sits at the start or end of a message almost always; scanning a bounded window
 * keeps detection cost flat however long the pasted material in between is. */
const HEAD = 800;
const TAIL = 400;
const window = (text: string): string => (text.length <= HEAD + TAIL ? text : `${text.slice(0, HEAD)}\n${text.slice(-TAIL)}`);

export function detectTask(req: ChatRequest, callerTask: string | undefined): DetectedTask {
  if (callerTask) return { task: callerTask, subtype: "caller_supplied", source: "caller" };
  if (req.tools && req.tools.length > 0) return { task: "agent", subtype: "tool_use", source: "detected" };
  const lastUser = req.messages.findLast((m) => m.role === "user");
  const text = lastUser ? window(messageText(lastUser)) : "";
  if (Array.isArray(lastUser?.content) && lastUser.content.some((p) => p.type === "image_url")) {
    return { task: "vision", subtype: "image_understanding", source: "detected" };
  }
  for (const rule of RULES) if (rule.pattern.test(text)) return { task: rule.task, subtype: rule.subtype, source: "detected" };
  return text.trim().endsWith("?")
    ? { task: "qa", subtype: "question", source: "detected" }
    : { task: "chat", subtype: "conversation", source: "detected" };
}
