// The 422 validation body of /cache/invalidate and /feedback (docs/api.md "Errors"):
// `{message, errors: {"<field>": ["..."]}}`, the one error that is not the error envelope.
import type { FieldErrors } from "../schema/cache-invalidate.ts";
import { jsonResponse } from "./context.ts";

export interface ValidationFailure {
  message: string;
  errors: FieldErrors;
}

export const validationErrorResponse = (failure: ValidationFailure, requestId: string): Response =>
  jsonResponse(JSON.stringify({ message: failure.message, errors: failure.errors }), requestId, {}, 422);
