// Stage analyze: bounds input tokens (strict bound, see tokens.ts) and detects the task.
// Writes inputTokens and task.
import { boundMessageTokens } from "../../analysis/tokens.ts";
import { detectTask } from "../../analysis/task.ts";
import type { Deps } from "../../deps.ts";
import type { RequestState } from "../state.ts";

export function analyze(_deps: Deps, state: RequestState): void {
  const req = state.request!;
  state.inputTokens = boundMessageTokens(req.messages);
  const callerTask = req.metadata && typeof req.metadata === "object" ? (req.metadata as { task?: unknown }).task : undefined;
  state.task = detectTask(req, typeof callerTask === "string" ? callerTask : undefined);
}
