// One sample of every kind the guard finds (docs/guard.md), shared by the unit and flow tests:
// the sentence it sits in, the value that must never pass, and the placeholder that replaces it.
// Every key here is a made-up value of the right shape (and checksum, for cards and IBANs).
import type { Kind } from "../../src/guard/kinds.ts";

export interface Sample {
  name: string;
  kind: Kind;
  value: string;
  text: string;
  placeholder: string;
}

const JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFkYSJ9.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
const PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq98NPdVFQ2ml0Z4yEkYyP1p1jqQ0Xo\n-----END RSA PRIVATE KEY-----";

const pii = (name: string, kind: Kind, value: string, text: string, label: string): Sample =>
  ({ name, kind, value, text: text.replace("$", value), placeholder: `[${label}_1]` });
const secret = (name: string, value: string, text = "Why is $ rejected?"): Sample =>
  ({ name, kind: "secret", value, text: text.replace("$", value), placeholder: "[SECRET_1]" });

export const SAMPLES: readonly Sample[] = [
  pii("e-mail address", "email", "ada.lovelace@example.com", "Draft a reply to $ about the meeting.", "EMAIL"),
  pii("international phone number", "phone", "+44 20 7946 0958", "Call the office on $ tomorrow.", "PHONE"),
  pii("North American phone number", "phone", "(415) 555-0132", "Her number is $, call after five.", "PHONE"),
  pii("national phone number", "phone", "06 12 34 56 78", "Mon portable: $.", "PHONE"),
  pii("card number (spaces)", "card", "4111 1111 1111 1111", "Charge $ for the order.", "CARD"),
  pii("card number (dashes)", "card", "5555-5555-5555-4444", "Charge $ for the order.", "CARD"),
  pii("card number (Amex)", "card", "378282246310005", "The Amex is $.", "CARD"),
  pii("IBAN (printed)", "iban", "DE89 3704 0044 0532 0130 00", "Transfer it to $ please.", "IBAN"),
  pii("IBAN (electronic)", "iban", "GB82WEST12345698765432", "Transfer it to $ please.", "IBAN"),
  secret("OpenAI key", "sk-proj-Abc123def456ghi789jkl012mno345"),
  secret("Anthropic key", "sk-ant-api03-Xyz789abc456def123ghi000"),
  secret("AWS access key id", "AKIAIOSFODNN7EXAMPLE"),
  secret("AWS secret key in context", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "My config has aws_secret_access_key = $ in it."),
  secret("GitHub token (ghp_)", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
  secret("GitHub token (gho_)", "gho_0123456789abcdefghijklmnopqrstuvwxyz"),
  secret("GitHub fine-grained token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"),
  secret("Slack token", "xoxb-123456789012-1234567890123-abcdefghij"),
  secret("Google API key", "AIzaSyA1234567890abcdefghijklmnopqrstuv"),
  secret("Stripe secret key", "sk_live_51Habcdefghijklmnop1234"),
  secret("Stripe restricted key", "rk_live_51Habcdefghijklmnop1234"),
  secret("JWT", JWT),
  secret("Bearer token", "abcdef0123456789ghijklmnop", "curl -H 'Authorization: Bearer $' fails"),
  secret("gw live key", "gw_live_0123456789abcdefghij0123456789abcdefghij"),
  secret("gw test key", "gw_test_abcdefghij0123456789abcdefghij0123456789"),
  { name: "private key", kind: "private_key", value: PEM, text: `Is this key valid?\n${PEM}\nThanks.`, placeholder: "[PRIVATE_KEY_1]" },
];

/** Texts the guard must leave alone. */
export const CLEAN: readonly string[] = [
  "The meeting is on 2024-01-15, 15.01.2024 or 01/15/2024 at 2024-01-15T10:00:00Z.",
  "Upgrade from 1.2.3 to 10.0.19041.1234, then to v2.10.0-beta.1.",
  "It costs $1,299.99, or 1 299 999 EUR, or 12.345.678,90 in total.",
  "Request 123e4567-e89b-12d3-a456-426614174000 and 12345678-1234-1234-1234-123456789012.",
  "Timestamps 1700000000 and 1700000000000; 42 apples; pi is 3.14159265358979.",
  "Hashes deadbeef, 0xCAFEBABE, a3f9c2 and commit 9fceb02d0ae598e95dc970b74767f19372d61af8.",
  "Serve it on 192.168.100.200:8080 and ISBN 978-3-16-148410-0.",
  "The card 4111 1111 1111 1112 fails Luhn; DE89 3704 0044 0532 0130 01 fails mod-97.",
  "Use sk-learn-is-a-library-name or a Bearer authentication-scheme-for-everyone.",
  "Follow @mention and @Component(); mail user@localhost.",
  "Room 101, 555-1234 is a local extension, order #12345678, +5 degrees.",
];
