// Upstream error texts reach callers (UpstreamFailure.detail) and gw's own failure messages reach
// logs; a provider echoing a key, a Bearer header or a signed URL must not pass one on. Anything
// that looks like a credential is replaced (docs/security.md "Admin").
const REDACTED = "[redacted]";

const RULES: ReadonlyArray<[RegExp, string | ((run: string) => string)]> = [
  // Authorization values: `Bearer xyz`, `Basic xyz`.
  [/\b(Bearer|Basic)\s+[^\s"',;]+/gi, `$1 ${REDACTED}`],
  // key=value and "key": "value" pairs whose name says credential.
  [/(\b(?:api[_-]?key|x-api-key|x-goog-api-key|access[_-]?token|refresh[_-]?token|client[_-]?secret|secret|password|passwd|token|authorization|credential|signature)["']?\s*[:=]\s*["']?)[^\s"'&,;}]+/gi, `$1${REDACTED}`],
  // Credentials in URL query strings (Google's `?key=`, signed URLs).
  [/([?&](?:key|api[_-]?key|apikey|token|access_token|sig|signature|x-amz-signature|x-amz-credential|x-goog-signature)=)[^&\s"'#]+/gi, `$1${REDACTED}`],
  // Known key shapes: OpenAI/Anthropic (sk-...), Google (AIza...), gw's own keys, AWS, GitHub, Slack.
  [/\bsk-[A-Za-z0-9_*-]{6,}/g, REDACTED],
  [/\bAIza[0-9A-Za-z_-]{20,}/g, REDACTED],
  [/\bgw_(?:live|test)_[0-9a-z]{8,}/g, REDACTED],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, REDACTED],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, REDACTED],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, REDACTED],
  // Any long opaque run of letters and digits (a key of an unknown shape, a JWT).
  [/[A-Za-z0-9_\-.]{32,}/g, redactIfMixed],
];

/** Letters and digits mixed, and not a lowercase dashed name (model ids like `claude-3-5-sonnet-20241022`). */
function redactIfMixed(run: string): string {
  return /[A-Za-z]/.test(run) && /[0-9]/.test(run) && !/^[a-z]+(?:[-.][a-z0-9]+)*$/.test(run) ? REDACTED : run;
}

/** The text with everything that looks like a credential replaced by `[redacted]`. */
export function scrubCredentials(text: string): string {
  let out = text;
  for (const [pattern, replacement] of RULES) {
    out = typeof replacement === "string" ? out.replace(pattern, replacement) : out.replace(pattern, replacement);
  }
  return out;
}
