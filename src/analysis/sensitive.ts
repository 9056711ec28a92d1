// Whether a text holds anything a redacting store would have to remove (docs/retention.md
// "redacted"): personal data as the analyzer sees it, or a secret of the guard's catalogue, plus
// `password = ...` assignments. Errs on the side of "yes".
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
