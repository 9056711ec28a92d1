// A message text that is one JSON document, parsed only when re-emitting it keeps every number
// (docs/optimization.md "columnar_arrays"): JSON.parse rounds past ~15 significant digits.
const MAX_EXACT_DIGITS = 15;

/** False when a number literal outside strings has more digits than a double keeps exactly. One
 * pass with the string state (escapes included), no regex. */
export function numbersSurvive(text: string): boolean {
  let inString = false;
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) {
      inString = true;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (++digits > MAX_EXACT_DIGITS) return false;
    } else if (c !== 46 && c !== 101 && c !== 69 && c !== 43 && c !== 45) digits = 0; // . e E + - continue a literal
  }
  return true;
}

/** The parsed value when the whole text (bar surrounding whitespace) is a JSON object or array
 * whose numbers survive; undefined otherwise. */
export function parseJsonText(text: string): unknown {
  const trimmed = text.trim();
  const open = trimmed[0];
  const close = trimmed.at(-1);
  if (!((open === "{" && close === "}") || (open === "[" && close === "]"))) return undefined;
  if (!numbersSurvive(trimmed)) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}
