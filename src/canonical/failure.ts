// The failure vocabulary of upstream attempts (docs/architecture.md "Errors").

/** Why an upstream attempt failed; decides retry and fallback (architecture rule 2). */
export type FailureClass =
  | "rate_limit" | "transient" | "timeout" | "credential" | "caller" | "context_length" | "content_filter" | "model_gone";

