// Canonical usage (OpenAI's shape): prompt and completion tokens present, total their sum. Shared
// by every adapter and by the pipeline's stream tap.
import { isObject } from "../lib/json.ts";
import type { Usage } from "../canonical/completion.ts";

export function normalizeUsage(value: unknown): Usage | null {
  if (!isObject(value)) return null;
  const prompt = typeof value.prompt_tokens === "number" ? value.prompt_tokens : 0;
  const completion = typeof value.completion_tokens === "number" ? value.completion_tokens : 0;
  return { ...value, prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}
