// tool_prune (balanced+, docs/optimization.md "tool_prune"): the tools the conversation used plus the
// ones most relevant to the last user turn; never when tool_choice names a tool or is "required".
import type { ChatRequest, FunctionTool } from "../../canonical/chat.ts";
import { contentWords } from "../lib/words.ts";
import type { Stage } from "../types.ts";

/** At least this many tools stay (all of them when there are no more). */
export const MIN_KEPT = 8;
/** Unused tools kept beside the used ones however many those are, so the model keeps a choice. */
export const MIN_EXTRA = 3;

/** Names of the tools the conversation already called. */
export function usedTools(req: ChatRequest): Set<string> {
  const used = new Set<string>();
  for (const m of req.messages) for (const call of m.tool_calls ?? []) used.add(call.function.name);
  return used;
}

function lastUserText(req: ChatRequest): string {
  const m = req.messages.findLast((x) => x.role === "user");
  if (!m) return "";
  if (typeof m.content === "string") return m.content;
  return Array.isArray(m.content) ? m.content.map((p) => (typeof p.text === "string" ? p.text : "")).join(" ") : "";
}

/** Query words found in the tool's name count twice, in its description once. */
function relevance(tool: FunctionTool, query: ReadonlySet<string>): number {
  const name = contentWords(tool.function.name);
  const described = contentWords(tool.function.description ?? "", 2000);
  let score = 0;
  for (const w of query) score += name.has(w) ? 2 : described.has(w) ? 1 : 0;
  return score;
}

/** Whether the request lets the stage prune at all. */
function prunable(req: ChatRequest): req is ChatRequest & { tools: FunctionTool[] } {
  const choice = req.tool_choice;
  if (choice === "required" || (typeof choice === "object" && choice !== null)) return false;
  return Array.isArray(req.tools) && req.tools.length > MIN_KEPT;
}

/** The indexes of the tools kept, in their original order, or null when all stay. */
export function planPrune(req: ChatRequest): number[] | null {
  if (!prunable(req)) return null;
  const query = contentWords(lastUserText(req));
  if (query.size === 0) return null;
  const used = usedTools(req);
  const keep = new Set<number>();
  const others: { i: number; score: number }[] = [];
  req.tools.forEach((t, i) => (used.has(t.function.name) ? keep.add(i) : others.push({ i, score: relevance(t, query) })));
  others.sort((a, b) => b.score - a.score || a.i - b.i);
  const extra = Math.max(MIN_KEPT - keep.size, MIN_EXTRA);
  for (const { i, score } of others.slice(0, extra)) if (score > 0 || keep.size < MIN_KEPT) keep.add(i);
  if (keep.size >= req.tools.length) return null;
  return [...keep].sort((a, b) => a - b);
}

function run(req: ChatRequest): ChatRequest | null {
  const plan = planPrune(req);
  if (!plan || !req.tools) return null;
  const tools = req.tools;
  return { ...req, tools: plan.map((i) => tools[i]!) };
}

/** Messages untouched; the kept tools an ordered subset of the original, every used tool among
 * them, at least MIN_KEPT (never zero), and none pruned when tool_choice forbids it. */
function verify(before: ChatRequest, after: ChatRequest): boolean {
  if (after.messages !== before.messages || !before.tools || !after.tools) return false;
  if (!prunable(before) || after.tools.length < Math.min(MIN_KEPT, before.tools.length)) return false;
  let j = 0;
  for (const t of after.tools) {
    while (j < before.tools.length && before.tools[j] !== t) j++;
    if (j++ >= before.tools.length) return false;
  }
  const kept = new Set(after.tools.map((t) => t.function.name));
  for (const name of usedTools(before)) if (before.tools.some((t) => t.function.name === name) && !kept.has(name)) return false;
  return true;
}

export const toolPrune: Stage = { name: "tool_prune", from: "balanced", run, verify };
