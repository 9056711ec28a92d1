// GW_CONFIG's parse errors say where (src/config/json-position.ts): the first character a JSON
// parser cannot accept, as line and column; valid JSON has no position.
import { expect, test } from "bun:test";
import { jsonErrorPosition } from "../../src/config/json-position.ts";

test.each([
  ['{\n  "models": [\n    { id: "x" }\n  ]\n}', 3, 7],
  ['{"a":1,}', 1, 8],
  ["", 1, 1],
  ['{"a": tru}', 1, 7],
  ["[1, 2", 1, 6],
  ['{"a":"b\\q"}', 1, 9],
  ['{"a": 01}', 1, 8],
  ['{"a": 1} x', 1, 10],
  ['{\n"a": "line\nbreak"}', 2, 11],
  ['{"a": "\\u12"}', 1, 9],
])("%p fails at line %d, column %d", (text, line, column) => {
  expect(() => JSON.parse(text)).toThrow();
  expect(jsonErrorPosition(text)).toEqual({ line, column });
});

test("valid JSON, whatever it holds, has no error position", () => {
  for (const text of ['{"a": 1}', "  [1,2,3]  ", '{"a":[{"b":null,"c":true,"d":false,"e":-1.5e3,"f":"\\u00e9\\n\\"x"}]}', '"s"', "0"]) {
    expect(() => JSON.parse(text)).not.toThrow();
    expect(jsonErrorPosition(text)).toBeNull();
  }
});
