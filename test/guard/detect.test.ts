// The detector and its checksums (docs/guard.md "What is found"; issue 9 item 6): each kind in
// context, the shapes that must not be flagged, and the Luhn and mod-97 checks on their own.
import { describe, expect, test } from "bun:test";
import { ibanValid, luhn } from "../../src/guard/checksums.ts";
import { detect } from "../../src/guard/detect.ts";
import { Redactor } from "../../src/guard/redact.ts";
import { CLEAN, SAMPLES } from "./samples.ts";

const ALL = { pii: true, secrets: true };
const redactText = (text: string) => new Redactor().apply(text, detect(text, ALL));
const found = (text: string, want = ALL) => detect(text, want).map((f) => [f.kind, text.slice(f.start, f.end)]);

describe("docs/guard.md: every kind is found, whole", () => {
  for (const s of SAMPLES) {
    test(s.name, () => {
      expect(found(s.text)).toEqual([[s.kind, s.value]]);
    });
  }

  test("several findings in one text come out in order", () => {
    const text = "Mail bob@example.org or call +1 (555) 123-4567; card 4111-1111-1111-1111, key AKIAIOSFODNN7EXAMPLE.";
    expect(found(text)).toEqual([
      ["email", "bob@example.org"], ["phone", "+1 (555) 123-4567"], ["card", "4111-1111-1111-1111"], ["secret", "AKIAIOSFODNN7EXAMPLE"],
    ]);
  });

  test("inside JSON (tool arguments) the quotes stay outside the finding", () => {
    expect(found('{"to":"bob@example.org","phone":"+33 6 12 34 56 78"}')).toEqual([["email", "bob@example.org"], ["phone", "+33 6 12 34 56 78"]]);
  });

  test("JSON text: an escaped newline ends a word, and the redacted JSON still parses", () => {
    const args = JSON.stringify({ note: "see\nsk-proj-Abc123def456ghi789jkl012", to: "x\nada@example.com", pem: "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADAN", n: "\n+44 20 7946 0958" });
    expect(found(args).map(([kind]) => kind)).toEqual(["secret", "email", "private_key", "phone"]);
    const redacted = redactText(args);
    expect(JSON.parse(redacted)).toEqual({ note: "see\n[SECRET_1]", to: "x\n[EMAIL_1]", pem: "[PRIVATE_KEY_1]", n: "\n[PHONE_1]" });
  });

  test("a card followed by its expiry, and an e-mail whose local part is digits", () => {
    expect(found("4111 1111 1111 1111 12/26")).toEqual([["card", "4111 1111 1111 1111"]]);
    expect(found("sms +4915112345678@sms.example.com")).toEqual([["email", "+4915112345678@sms.example.com"]]);
  });

  test("a private key without its END line runs to the end of the text", () => {
    expect(found("key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk")).toEqual([["private_key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk"]]);
  });

  test("a JWT needs a header that decodes to JSON with alg", () => {
    expect(found("eyJub3RhIjoiand0In0.eyJzdWIiOiIxIn0.c2ln")).toEqual([]); // {"nota":"jwt"}
  });

  test("only the categories asked for are scanned", () => {
    const text = "bob@example.org and AKIAIOSFODNN7EXAMPLE";
    expect(found(text, { pii: false, secrets: true })).toEqual([["secret", "AKIAIOSFODNN7EXAMPLE"]]);
    expect(found(text, { pii: true, secrets: false })).toEqual([["email", "bob@example.org"]]);
    expect(found(text, { pii: false, secrets: false })).toEqual([]);
  });
});

describe("docs/guard.md: false positives", () => {
  for (const text of CLEAN) {
    test(text, () => {
      expect(found(text)).toEqual([]);
    });
  }
});

describe("checksums", () => {
  test("Luhn", () => {
    for (const ok of ["4111111111111111", "5555555555554444", "378282246310005", "6011111111111117", "79927398713"]) expect(luhn(ok)).toBe(true);
    for (const bad of ["4111111111111112", "5555555555554445", "79927398710"]) expect(luhn(bad)).toBe(false);
  });

  test("IBAN mod-97", () => {
    for (const ok of ["DE89370400440532013000", "GB82WEST12345698765432", "NL91ABNA0417164300", "FR1420041010050500013M02606"]) expect(ibanValid(ok)).toBe(true);
    for (const bad of ["DE89370400440532013001", "GB82WEST12345698765433", "NL91ABNA0417164301"]) expect(ibanValid(bad)).toBe(false);
  });

  test("an IBAN of the wrong length for its country is not one", () => {
    expect(found("DE89 3704 0044 0532 0130")).toEqual([]);
    expect(found("FR1420041010050500013M02606 and NL91ABNA0417164300")).toEqual([["iban", "FR1420041010050500013M02606"], ["iban", "NL91ABNA0417164300"]]);
  });
});
