// Quoted strings for the literal guard (docs/semantic-cache.md "Literal guard"), in every quoting
// style: straight, curly, doubled (""x""), single, backticks, guillemets, „German“, 「CJK」. One pass,
// each character read once; a run of quote marks counts as one mark.

/** Marks that open or close a double-style quote; any of them closes what any of them opened, so
 * "x“, «x» and »x« all work. Backticks too (but not a ``` fence, which opens code, not a term). */
const DOUBLE = new Set([..."\"“”„‟«»‹›「」『』〝〞〟`"].map((c) => c.charCodeAt(0)));
/** Single marks double as apostrophes: they open only after a non-word character and close only
 * before one, so "don't" and "l'expression" never quote anything. */
const SINGLE = new Set([..."'‘’‚‛"].map((c) => c.charCodeAt(0)));
/** Chinese, Japanese and Korean have no apostrophes: a mark next to them is a quote mark. */
const WORD = /(?![\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}])[\p{L}\p{N}]/u;
const MAX_QUOTES = 24;
const MAX_CHARS = 300;

const isWord = (ch: string | undefined): boolean => ch !== undefined && WORD.test(ch);
const isHebrew = (code: number): boolean => code >= 0x5d0 && code <= 0x5ea;
/** A straight double quote before the last Hebrew letter of a word is gershayim, an abbreviation's
 * mark (ארה"ב, ש"ח), not a quote; after a prefix (ב"אייפון") it quotes. */
const gershayim = (text: string, i: number): boolean =>
  isHebrew(text.charCodeAt(i - 1)) && isHebrew(text.charCodeAt(i + 1)) && !isHebrew(text.charCodeAt(i + 2));

/** The quoted strings of `text`, raw (the caller normalises them); an unclosed quote is dropped. */
export function quotedStrings(text: string): string[] {
  const out: string[] = [];
  let doubleAt = -1; // where the open double quote's content starts
  let singleAt = -1;
  let i = 0;
  while (i < text.length && out.length < MAX_QUOTES) {
    const code = text.charCodeAt(i);
    const isDouble = DOUBLE.has(code) && !(code === 0x22 && gershayim(text, i));
    if (!isDouble && !SINGLE.has(code)) {
      i++;
      continue;
    }
    // A run of marks of one family: `""`, `““`, `''`.
    const family = isDouble ? DOUBLE : SINGLE;
    let end = i + 1;
    while (end < text.length && family.has(text.charCodeAt(end))) end++;
    if (isDouble) {
      if (code === 0x60 && end - i >= 3) doubleAt = -1; // a code fence: not a quoted term
      else if (doubleAt < 0) doubleAt = end;
      else {
        push(out, text.slice(doubleAt, i));
        doubleAt = -1;
      }
    } else {
      const before = text[i - 1];
      const after = text[end];
      if (singleAt >= 0 && !isWord(after) && before !== " ") {
        push(out, text.slice(singleAt, i));
        singleAt = -1;
      } else if (singleAt < 0 && !isWord(before) && after !== undefined && after !== " ") singleAt = end;
    }
    i = end;
  }
  return out;
}

function push(out: string[], content: string): void {
  if (content.trim() !== "" && content.length <= MAX_CHARS) out.push(content);
}
