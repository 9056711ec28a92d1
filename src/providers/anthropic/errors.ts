// Maps Anthropic error responses ({type:"error", error:{type, message}}), before and during a
// stream, to a failure class (decides fallback) and public code. Anthropic API "Errors" page.
import { isObject } from "../../lib/json.ts";
import { UpstreamFailure } from "../../canonical/failure.ts";
import { classifyStatus, type StatusDialect } from "../classify-status.ts";

export interface AnthropicError { type: string | null; message: string | null }

export function errorOf(body: string): AnthropicError {
  try {
    const parsed: unknown = JSON.parse(body);
    if (isObject(parsed) && isObject(parsed.error)) {
      const { type, message } = parsed.error;
      return { type: typeof type === "string" ? type : null, message: typeof message === "string" ? message : null };
    }
  } catch {
    // Not JSON (a proxy's HTML page, say): the status alone decides.
  }
  return { type: null, message: null };
}

/** Anthropic reports an over-long prompt as a plain invalid_request_error; only the message tells. */
const CONTEXT_LENGTH = /prompt is too long|exceed(s|ed)? (the )?context (window|limit)|context length/i;
/** An exhausted account is gw's problem, not the caller's: another provider may still answer. */
const BILLING = /credit balance/i;

const DIALECT: StatusDialect = {
  credentialStatuses: [401, 402, 403],
  unavailableStatuses: [503, 529],
  rateLimitWords: "rate limit reached",
  credentialWords: "rejected gw's credentials or account",
  unavailableWords: "is overloaded",
};

export function parseError(status: number, body: string, headers: Headers, provider: string): UpstreamFailure {
  const { type, message } = errorOf(body);
  return classifyStatus(status, headers, provider, DIALECT, {
    message,
    credential: status === 400 && message !== null && BILLING.test(message),
    contextLength: message !== null && CONTEXT_LENGTH.test(message),
    overloaded: type === "overloaded_error",
  });
}

/** An `event: error` after the 200: overloaded is unavailability; anything else an upstream error. */
export function streamError(data: string, provider: string): UpstreamFailure {
  const { type } = errorOf(data);
  if (type === "overloaded_error") {
    return new UpstreamFailure({ failureClass: "transient", message: `${provider} became overloaded mid-stream.`, upstreamStatus: 200 });
  }
  return UpstreamFailure.badBody(`${provider} reported an error mid-stream (${type ?? "unknown"}).`);
}
