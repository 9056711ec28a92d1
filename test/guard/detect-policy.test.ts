// The detector under one category (issue 19): its scan passes the characters that can open only
// what the policy does not look for, so each category alone must find what both together find.
import { describe, expect, test } from "bun:test";
import { detect } from "../../src/guard/detect.ts";
import { CATEGORY } from "../../src/guard/kinds.ts";
import { SAMPLES } from "./samples.ts";

const ALL = { pii: true, secrets: true };
const SECRETS = { pii: false, secrets: true };
const PII = { pii: true, secrets: false };
const found = (text: string, want: typeof ALL) => detect(text, want).map((f) => [f.kind, text.slice(f.start, f.end)]);
const only = (text: string, category: "pii" | "secrets") =>
  found(text, ALL).filter(([kind]) => CATEGORY[kind as keyof typeof CATEGORY] === category);

/** Values right after what the other category's scan looks at: `@`, digits, `+`, `(`, capitals,
 * a secret's first letters, escapes and dashes. */
const TEXTS = [
  "(sk-proj-Abc123def456ghi789jkl012) and +44 20 7946 0958",
  "mail ada@example.com AKIAIOSFODNN7EXAMPLE then 4111 1111 1111 1111",
  "a@ sk-proj-Abc123def456ghi789jkl012 @ +33 6 12 34 56 78",
  "\\nsk-proj-Abc123def456ghi789jkl012\\n+1 (555) 123-4567",
  "-- --- -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq98NPdVFQ2ml0Z4yEkYyP1p1jqQ0Xo\n-----END RSA PRIVATE KEY----- DE89 3704 0044 0532 0130 00",
  "see search secret: bob@example.org, bearer token ghp_abcdefghijklmnopqrstuvwxyz0123456789 é(415) 555-0132",
  ...SAMPLES.map((s) => s.text),
];

describe("detect under one category finds what both together find of it", () => {
  for (const [i, text] of TEXTS.entries()) {
    test(`text ${i}: ${text.slice(0, 40)}`, () => {
      expect(found(text, SECRETS)).toEqual(only(text, "secrets"));
      expect(found(text, PII)).toEqual(only(text, "pii"));
    });
  }
});
