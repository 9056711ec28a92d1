// Whether a text holds anything a redacting store would have to remove (docs/retention.md
// "redacted"): personal data as the analyzer sees it (personal.ts through scan: e-mail addresses,
// phone, card, IBAN and SSN numbers, "my name is"-style phrases, personal nouns after "my"), or a
// secret (credentials by their well-known shapes). Errs on the side of "yes": a false positive
// costs a cache entry or a replay, a false negative would store what should not be stored.
// Secrets are the policy guard's catalogue (src/guard, docs/guard.md), so "a secret" means the
// same thing to retention and to the `secrets` policy; this adds `password = ...` assignments.
import { detect } from "../guard/detect.ts";
import { scan } from "./scan.ts";

export type SensitiveKind = "personal_data" | "secret";

const SECRETS_ONLY = { pii: false, secrets: true } as const;
/** Credentials written as assignments: the guard does not redact these (the name is not the
 * value's shape), but a redacting store should not keep them either. */
const ASSIGNMENT = /\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token)\s*[:=]\s*["']?[^\s"']{6,}/i;

export const hasSecret = (text: string): boolean => detect(text, SECRETS_ONLY).length > 0 || ASSIGNMENT.test(text);

/** The first kind of sensitive content found, or null when the text is clean. */
export function sensitiveContent(text: string): SensitiveKind | null {
  if (text.trim() === "") return null;
  if (hasSecret(text)) return "secret";
  // The analyzer's own detector, over the whole text (the analyzer reads a window of the last
  // user message; what is stored is every message and the whole answer).
  return scan(text).personal ? "personal_data" : null;
}
