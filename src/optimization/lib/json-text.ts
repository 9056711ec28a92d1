// A message text that is one JSON document, parsed only when re-emitting it writes every number
// literal exactly as it was (docs/optimization.md "columnar_arrays"): JSON.parse rounds past ~15
// significant digits and re-emits 89.90 as 89.9 and 1e3 as 1000, which the preserve gate would refuse.

const isNumberChar = (c: number): boolean => (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69;

/** False when a number literal outside strings would be written differently once parsed. One pass
 * with the string state (escapes included), no regex. */
export function numbersSurvive(text: string): boolean {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if ((c >= 48 && c <= 57) || c === 45) {
      let j = i + 1;
      while (j < text.length && isNumberChar(text.charCodeAt(j))) j++;
      const literal = text.slice(i, j);
      if (String(Number(literal)) !== literal) return false;
      i = j - 1;
    }
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
