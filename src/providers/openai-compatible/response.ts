// Reads an OpenAI-compatible chat completion into the canonical shape (pure).
import { isObject } from "../../lib/json.ts";
import { normalizeUsage } from "../usage.ts";
import { RAW_BODY, type ChatCompletion, type Usage } from "../types.ts";
import { UpstreamFailure } from "../upstream-failure.ts";

const ZERO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

export function parseResponse(text: string, provider: string): ChatCompletion {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new UpstreamFailure("transient", `${provider} returned a body that is not JSON.`, 200, undefined, "upstream_error");
  }
  if (!isObject(body) || !Array.isArray(body.choices)) {
    throw new UpstreamFailure("transient", `${provider} returned an unexpected body.`, 200, undefined, "upstream_error");
  }
  const completion = body as ChatCompletion;
  completion.usage = normalizeUsage(body.usage) ?? { ...ZERO_USAGE };
  // Symbol-keyed: kept for the response, invisible to JSON.stringify.
  completion[RAW_BODY] = text;
  return completion;
}
