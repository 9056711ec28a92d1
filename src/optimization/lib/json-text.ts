// Whether a JSON document can be parsed and written again without changing what it says
// (docs/optimization.md "columnar_arrays"): JSON.parse rounds past ~15 significant digits, writes
// 89.90 back as 89.9 and 1e3 as 1000, and keeps only the last of repeated keys.

const isNumberChar = (c: number): boolean => (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69;

/** A JSON text as written: whether every number literal outside strings is written back the same once
 * parsed, and how many object members it has (a key is a string followed by ":"), which exceeds the
 * parsed value's count when a key repeats (JSON.parse keeps the last). One pass, no regex. */
export function scanLiteral(text: string): { exact: boolean; members: number } {
  let members = 0;
  let afterString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = stringEnd(text, i);
      afterString = true;
      continue;
    }
    if (c === 32 || c === 10 || c === 13 || c === 9) continue;
    if (c === 58 && afterString) members++;
    afterString = false;
    if ((c >= 48 && c <= 57) || c === 45) {
      let j = i + 1;
      while (j < text.length && isNumberChar(text.charCodeAt(j))) j++;
      const literal = text.slice(i, j);
      if (String(Number(literal)) !== literal) return { exact: false, members };
      i = j - 1;
    }
  }
  return { exact: true, members };
}

/** The index of the quote closing the string opened at `open` (the text's end when none does): the
 * next quote not escaped by an odd run of backslashes, found by indexOf rather than char by char. */
function stringEnd(text: string, open: number): number {
  for (let j = open + 1; ; j++) {
    j = text.indexOf('"', j);
    if (j < 0) return text.length;
    let b = j - 1;
    while (text.charCodeAt(b) === 92) b--;
    if ((j - 1 - b) % 2 === 0) return j;
  }
}
