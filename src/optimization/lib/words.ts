// Content words for tool relevance (docs/optimization.md "tool_prune"): lower-cased, split at spaces,
// ASCII punctuation, underscores and camelCase humps, a plural "s" dropped; one pass, no regex.
const STOP = new Set([
  "the", "and", "for", "with", "that", "this", "from", "into", "are", "was", "were", "what", "which", "who", "how",
  "can", "could", "would", "should", "you", "your", "our", "their", "its", "has", "have", "had", "not", "but", "all",
  "any", "please", "about", "there", "then", "than", "them", "they", "will", "does", "did", "get", "use", "using",
]);

const isSeparator = (c: number): boolean =>
  c <= 32 || (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 127);
const isUpper = (c: number): boolean => c >= 65 && c <= 90;
const isLower = (c: number): boolean => c >= 97 && c <= 122;

function normal(word: string): string | null {
  const w = word.toLowerCase();
  if (w.length < 3 || STOP.has(w)) return null;
  return w.length > 3 && w.endsWith("s") && !w.endsWith("ss") ? w.slice(0, -1) : w;
}

/** The distinct content words of the first `limit` characters of a text. */
export function contentWords(text: string, limit = 4000, into = new Set<string>()): Set<string> {
  const end = Math.min(text.length, limit);
  let start = 0;
  const flush = (to: number): void => {
    if (to > start) {
      const w = normal(text.slice(start, to));
      if (w) into.add(w);
    }
  };
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (isSeparator(c)) {
      flush(i);
      start = i + 1;
    } else if (isUpper(c) && i > start && isLower(text.charCodeAt(i - 1))) {
      flush(i); // a camelCase hump starts a word
      start = i;
    }
  }
  flush(end);
  return into;
}
