// Where a JSON text stops being valid, for GW_CONFIG's parse error: Bun's JSON.parse says what
// broke but not where. Run only after JSON.parse has failed, on a small file.

class Stop extends Error {}
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4 = /[0-9a-fA-F]{4}/y;

/** The 1-based line and column of the first character a JSON parser cannot accept; null when the
 * text is valid JSON (or too deeply nested to walk). */
export function jsonErrorPosition(text: string): { line: number; column: number } | null {
  let i = 0;
  const fail = (): never => {
    throw new Stop();
  };
  const ws = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const word = (w: string) => (text.startsWith(w, i) ? (i += w.length) : fail());
  const string = () => {
    i++;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 34) return void i++;
      if (c < 32) fail();
      if (c !== 92) {
        i++;
        continue;
      }
      const e = text[i + 1];
      HEX4.lastIndex = i + 2;
      if (e === "u" && HEX4.test(text)) i += 6;
      else if (e !== undefined && e !== "u" && '"\\/bfnrt'.includes(e)) i += 2;
      else return void (i++, fail());
    }
    fail();
  };
  const list = (close: string, item: () => void) => {
    i++;
    ws();
    if (text[i] === close) return void i++;
    for (;;) {
      item();
      ws();
      if (text[i] === ",") i++;
      else if (text[i] === close) return void i++;
      else fail();
    }
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      list("}", () => {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ":") fail();
        i++;
        value();
      });
    } else if (c === "[") list("]", value);
    else if (c === '"') string();
    else if (c === "t") word("true");
    else if (c === "f") word("false");
    else if (c === "n") word("null");
    else {
      NUMBER.lastIndex = i;
      if (!NUMBER.test(text)) fail();
      i = NUMBER.lastIndex;
    }
  };
  try {
    value();
    ws();
    if (i < text.length) fail();
    return null;
  } catch (err) {
    if (!(err instanceof Stop)) return null;
  }
  const before = text.slice(0, i);
  return { line: before.split("\n").length, column: i - before.lastIndexOf("\n") };
}
