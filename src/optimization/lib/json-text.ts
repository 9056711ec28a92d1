// Whether a JSON document can be parsed and written again without changing a number literal
// (docs/optimization.md "columnar_arrays"): JSON.parse rounds past ~15 significant digits and
// writes 89.90 back as 89.9 and 1e3 as 1000, which the preserve gate would refuse.

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
