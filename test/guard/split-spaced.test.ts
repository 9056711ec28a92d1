// Values split across texts where a space was cut (issue 19): under secrets alone the spaced
// reading of joined texts runs only when a text holds a private key's BEGIN line, so these pin
// that a key block cut at any space is still found, and a token split without a space too.
import { describe, expect, test } from "bun:test";
import { scanTexts } from "../../src/guard/scan.ts";

const SECRETS = { pii: false, secrets: true };
const KEY = "-----BEGIN RSA PRIVATE KEY----- MIIEow IBAAKC AQEA7bq98 -----END RSA PRIVATE KEY-----";

const scan = (texts: string[]) => scanTexts(texts, SECRETS, 10_001, texts.map(() => true));

describe("secrets alone: values cut across texts", () => {
  const spaces = [...KEY].flatMap((ch, i) => (ch === " " ? [i] : []));
  for (const at of spaces) {
    test(`a key block cut at the space at ${at}`, () => {
      const r = scan(["You are terse.", KEY.slice(0, at), KEY.slice(at + 1)]);
      expect(r.counted).toEqual(["private_key"]);
      expect(r.perText[1]!.map((f) => f.kind)).toEqual(["private_key"]);
      expect(r.perText[2]!.map((f) => f.kind)).toEqual(["private_key"]);
    });
  }

  test("a token cut without a space", () => {
    const r = scan(["Why is sk-proj-Abc123def456", "ghi789jkl012 rejected?"]);
    expect(r.counted).toEqual(["secret"]);
    expect(r.perText.map((l) => l.length)).toEqual([1, 1]);
  });

  test("text cut at spaces holds no crossing value", () => {
    const r = scan(["You are a helpful assistant.", "Summarise the notes below for a colleague."]);
    expect(r.counted).toEqual([]);
  });
});
