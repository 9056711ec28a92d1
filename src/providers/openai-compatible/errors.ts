// Maps an OpenAI-compatible error response to a failure class (decides fallback) and public code.
import { isObject } from "../../lib/json.ts";
import type { UpstreamFailure } from "../../canonical/failure.ts";
import { classifyStatus, type StatusDialect } from "../classify-status.ts";

const DIALECT: StatusDialect = {
  credentialStatuses: [401, 403],
  unavailableStatuses: [503, 529],
  rateLimitWords: "rate limit reached",
  credentialWords: "rejected gw's credentials",
  unavailableWords: "is unavailable",
};

function upstreamMessage(body: string): { message: string | null; code: string | null } {
  try {
    const parsed: unknown = JSON.parse(body);
    if (isObject(parsed) && isObject(parsed.error)) {
      const { message, code } = parsed.error;
      return { message: typeof message === "string" ? message : null, code: typeof code === "string" ? code : null };
    }
  } catch {
    // Not JSON: nothing more to learn from it.
  }
  return { message: null, code: null };
}

export function parseError(status: number, body: string, headers: Headers, provider: string): UpstreamFailure {
  const { message, code } = upstreamMessage(body);
  return classifyStatus(status, headers, provider, DIALECT, { message, contextLength: code === "context_length_exceeded" });
}
