// Reads an OpenAI-compatible chat completion into the canonical shape (pure).
import { isObject } from "../../lib/json.ts";
import { normalizeUsage } from "../usage.ts";
import { RAW_BODY, type ChatCompletion, type Usage } from "../../canonical/completion.ts";
import { UpstreamFailure } from "../../canonical/failure.ts";

const ZERO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/** A choice gw can read: a message object whose content is a string, parts or null and whose tool calls,
 * if any, carry a function name and string arguments. Anything else is the upstream's fault
 * (upstream_error), never a crash further on (issue 14). */
function readableChoice(c: unknown): boolean {
  if (!isObject(c) || !isObject(c.message)) return false;
  const m = c.message;
  // An array of parts (Mistral's reasoning models) passes through as the upstream sent it.
  if (m.content !== undefined && m.content !== null && typeof m.content !== "string" && !Array.isArray(m.content)) return false;
  if (m.tool_calls === undefined || m.tool_calls === null) return true;
  return Array.isArray(m.tool_calls) && m.tool_calls.every((t) =>
    isObject(t) && isObject(t.function) && typeof t.function.name === "string" && typeof t.function.arguments === "string");
}

export function parseResponse(text: string, provider: string): ChatCompletion {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw UpstreamFailure.badBody(`${provider} returned a body that is not JSON.`);
  }
  if (!isObject(body) || !Array.isArray(body.choices) || !body.choices.every(readableChoice)) {
    throw UpstreamFailure.badBody(`${provider} returned an unexpected body.`);
  }
  const completion = body as ChatCompletion;
  completion.usage = normalizeUsage(body.usage) ?? { ...ZERO_USAGE };
  // Symbol-keyed: kept for the response, invisible to JSON.stringify.
  completion[RAW_BODY] = text;
  return completion;
}
