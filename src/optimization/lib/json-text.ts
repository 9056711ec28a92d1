// Whether a JSON document can be parsed and written again without changing what it says
// (docs/optimization.md "columnar_arrays"): JSON.parse rounds past ~15 significant digits, writes
// 89.90 back as 89.9 and 1e3 as 1000, and keeps only the last of repeated keys.

const isNumberChar = (c: number): boolean => (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69;

/** A JSON text as written: whether every number literal outside strings is written back the same once
 * parsed, and how many object members it has (a key is a string followed by ":"), which exceeds the
 * parsed value's count when a key repeats (JSON.parse keeps the last). One pass, no regex. */
export function scanLiteral(text: string): { exact: boolean; members: number } {
  let inString = false;
  let members = 0;
  let afterString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) (inString = false), (afterString = true);
      continue;
    }
    if (c === 32 || c === 10 || c === 13 || c === 9) continue;
    if (c === 58 && afterString) members++;
    afterString = false;
    if (c === 34) inString = true;
    else if ((c >= 48 && c <= 57) || c === 45) {
      let j = i + 1;
      while (j < text.length && isNumberChar(text.charCodeAt(j))) j++;
      const literal = text.slice(i, j);
      if (String(Number(literal)) !== literal) return { exact: false, members };
      i = j - 1;
    }
  }
  return { exact: true, members };
}
