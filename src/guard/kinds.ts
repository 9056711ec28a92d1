// What the PII and secrets guard finds (issue 9 item 6; docs/guard.md): the kinds, the policy key
// that governs each (`pii`, `secrets`), their placeholder labels and the words the
// 400 blocked_by_policy message names them with. Values never leave this module's callers.

export type PiiKind = "email" | "phone" | "card" | "iban";
export type SecretKind = "secret" | "private_key";
export type Kind = PiiKind | SecretKind;

/** The policy key that decides what happens to a kind. */
export type Category = "pii" | "secrets";

export const CATEGORY: Readonly<Record<Kind, Category>> = {
  email: "pii", phone: "pii", card: "pii", iban: "pii", secret: "secrets", private_key: "secrets",
};

/** `[EMAIL_1]`, `[PHONE_2]`...: typed so the model still knows what stood there. */
export const LABEL: Readonly<Record<Kind, string>> = {
  email: "EMAIL", phone: "PHONE", card: "CARD", iban: "IBAN", secret: "SECRET", private_key: "PRIVATE_KEY",
};

/** How the block message names a kind (never the value). */
export const NOUN: Readonly<Record<Kind, string>> = {
  email: "an e-mail address",
  phone: "a phone number",
  card: "a payment card number",
  iban: "an IBAN",
  secret: "a secret (API key or token)",
  private_key: "a private key",
};

/** Report order: the trace and the block message list kinds in this order. */
export const KINDS: readonly Kind[] = ["email", "phone", "card", "iban", "secret", "private_key"];

export interface Finding {
  kind: Kind;
  start: number;
  end: number;
}

/** Which categories a scan looks for: a category whose policy is `allow` is not scanned at all. */
export interface Wanted {
  pii: boolean;
  secrets: boolean;
}
