// When a failed delivery is tried again: the Standard Webhooks schedule with jitter that only adds,
// Retry-After honoured but never earlier than the schedule (docs/webhooks.md "Retries").
const S = 1000;
const M = 60 * S;
const H = 60 * M;

/** Delay before attempt i+1 (index 0: the first attempt, immediately). Ten attempts in all. */
export const RETRY_SCHEDULE_MS: readonly number[] = [0, 5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 14 * H, 20 * H, 24 * H];
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length;
/** Jitter adds up to this fraction of the delay, so retries of many events spread out. */
export const JITTER_FRACTION = 0.1;
/** A receiver's Retry-After cannot push a retry further than the longest step of the schedule. */
export const MAX_RETRY_AFTER_MS = 24 * H;
/** An endpoint failing without a single success for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * H;

/** Retry-After as milliseconds from `now`: delta-seconds or an HTTP date; null when absent or malformed. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | null {
  if (value === null || value === undefined) return null;
  const text = value.trim();
  if (text === "") return null;
  if (/^\d+$/.test(text)) return Number(text) * S;
  if (/^\d/.test(text)) return null; // "1.5", "5s": not delta-seconds, and Date.parse would accept some
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * When to make the next attempt after `attempt` attempts have failed (1 after the first), in epoch ms,
 * or null when the schedule is exhausted. `random` returns [0, 1) and is injected so tests are exact.
 */
export function nextAttemptAt(
  attempt: number,
  now: number,
  retryAfter: string | null | undefined,
  random: () => number,
): number | null {
  if (!Number.isInteger(attempt) || attempt < 1) throw new Error(`attempt must be a positive integer, got ${attempt}`);
  const base = RETRY_SCHEDULE_MS[attempt];
  if (base === undefined) return null;
  const scheduled = base + Math.floor(base * JITTER_FRACTION * random());
  const asked = parseRetryAfter(retryAfter, now);
  const delay = asked === null ? scheduled : Math.max(scheduled, Math.min(asked, MAX_RETRY_AFTER_MS));
  return now + delay;
}

/**
 * What an answer means. `failure` (a 3xx: redirects are not followed) is retried like `retry` but is
 * recorded as such; `disable` (410 Gone) turns the endpoint off at once. `null`: no answer (timeout,
 * refused connection, refused address).
 */
export type DeliveryOutcome = "success" | "disable" | "failure" | "retry";

export function outcomeOf(status: number | null): DeliveryOutcome {
  if (status === null) return "retry";
  if (status >= 200 && status < 300) return "success";
  if (status === 410) return "disable";
  if (status >= 300 && status < 400) return "failure";
  return "retry";
}

/** The five-day rule: `failingSince` is the first failed attempt after the endpoint's last success (null: not failing). */
export function failedTooLong(failingSince: number | null, now: number): boolean {
  return failingSince !== null && now - failingSince >= DISABLE_AFTER_FAILING_MS;
}
