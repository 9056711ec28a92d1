// POST /requests/{request_id}/feedback body (docs/api.md "Feedback"): `{rating}`, an integer 1 to 5;
// bad input answers the 422 body of docs/api.md "Errors". Written by hand: one field needs no schema
// compiler, and each failure gets a message that says what to send.
import { isObject } from "../lib/json.ts";
import type { FieldErrors } from "./cache-invalidate.ts";
import { LIMITS } from "../config/constants.ts";
import { jsonDepthExcess } from "./json-depth.ts";

export type ParsedFeedback =
  | { ok: true; value: { rating: number } }
  | { ok: false; message: string; errors: FieldErrors };

const failure = (field: string, reason: string): ParsedFeedback => ({
  ok: false,
  message: `${field === "body" ? "The request body" : `'${field}'`} ${reason}.`,
  errors: { [field]: [reason] },
});

const RATING = "must be an integer from 1 to 5";

/** The raw body text to a rating, or why it is not one. */
export function parseFeedback(text: string): ParsedFeedback {
  if (text.trim() === "") return failure("body", "is empty; expected a JSON object with `rating`");
  if (jsonDepthExcess(text, LIMITS.jsonDepth)) return failure("body", `is nested deeper than ${LIMITS.jsonDepth} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return failure("body", "is not valid JSON");
  }
  if (!isObject(value)) return failure("body", "must be a JSON object");
  const rating = value.rating;
  if (rating === undefined || rating === null) return failure("rating", `is required and ${RATING}`);
  // A string "5" is refused, not coerced: the rating is an integer (docs/api.md "Feedback").
  if (typeof rating !== "number" || !Number.isInteger(rating) || rating < 1 || rating > 5) return failure("rating", RATING);
  return { ok: true, value: { rating } };
}
