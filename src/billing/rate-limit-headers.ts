// The OpenAI-style rate-limit headers (docs/rate-limits.md): x-ratelimit-{limit,remaining,reset}-
// {requests,tokens}, with resets in OpenAI's duration form ("6m0s", "1s", "120ms"), and Retry-After.

export interface Snapshot {
  limit: number;
  remaining: number;
  /** Time until the allowance is whole again. */
  resetMs: number;
}

/** Go's time.Duration form, which OpenAI's headers use, to the millisecond: "120ms", "1s", "1.5s",
 * "6m0s", "1h0m0s". Rounded up, so a client that waits this long finds the allowance restored. */
export function formatDuration(ms: number): string {
  const total = Math.ceil(ms);
  if (total <= 0) return "0s";
  if (total < 1000) return `${total}ms`;
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const millis = total % 60_000;
  const seconds = `${Math.floor(millis / 1000)}${millis % 1000 ? `.${String(millis % 1000).padStart(3, "0").replace(/0+$/, "")}` : ""}s`;
  if (hours > 0) return `${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${minutes}m${seconds}`;
  return seconds;
}

/** Retry-After is whole seconds (RFC 9110); rounding up never invites a retry that is refused. */
export const retryAfterSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/** A limit's text, remembered for the last limit of each dimension (a policy's limits rarely change;
 * String of a large number is ~50-100 ns). */
const lastLimit = { requests: NaN, requestsText: "", tokens: NaN, tokensText: "" };
function requestsLimitText(n: number): string {
  if (n !== lastLimit.requests) (lastLimit.requests = n), (lastLimit.requestsText = String(n));
  return lastLimit.requestsText;
}
function tokensLimitText(n: number): string {
  if (n !== lastLimit.tokens) (lastLimit.tokens = n), (lastLimit.tokensText = String(n));
  return lastLimit.tokensText;
}

export function limitHeaders(requests: Snapshot | null, tokens: Snapshot | null): Record<string, string> {
  // Both dimensions (the usual policy): one literal of a fixed shape, same keys in the same order.
  if (requests && tokens) {
    return {
      "x-ratelimit-limit-requests": requestsLimitText(requests.limit),
      "x-ratelimit-remaining-requests": String(requests.remaining),
      "x-ratelimit-reset-requests": formatDuration(requests.resetMs),
      "x-ratelimit-limit-tokens": tokensLimitText(tokens.limit),
      "x-ratelimit-remaining-tokens": String(tokens.remaining),
      "x-ratelimit-reset-tokens": formatDuration(tokens.resetMs),
    };
  }
  const headers: Record<string, string> = {};
  if (requests) {
    headers["x-ratelimit-limit-requests"] = requestsLimitText(requests.limit);
    headers["x-ratelimit-remaining-requests"] = String(requests.remaining);
    headers["x-ratelimit-reset-requests"] = formatDuration(requests.resetMs);
  }
  if (tokens) {
    headers["x-ratelimit-limit-tokens"] = tokensLimitText(tokens.limit);
    headers["x-ratelimit-remaining-tokens"] = String(tokens.remaining);
    headers["x-ratelimit-reset-tokens"] = formatDuration(tokens.resetMs);
  }
  return headers;
}
