// Standard Webhooks signing: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, one signature per
// live secret so receivers keep verifying while a secret is rotated (docs/webhooks.md "Verifying a delivery").
import { createHmac, randomBytes } from "node:crypto";

const PREFIX = "whsec_";

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString("base64");
}

/** The HMAC key of a secret: the base64 after the `whsec_` prefix (the prefix is optional, as the spec allows). */
export function secretKey(secret: string): Buffer {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, "base64");
  if (key.length === 0) throw new Error("webhook secret is empty");
  return key;
}

/** One `v1,<base64>` signature of a message. */
export function signOne(secret: string, eventId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", secretKey(secret)).update(`${eventId}.${timestampSeconds}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/** After a rotation the old secret keeps signing alongside the new one for this long. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** The secrets to sign with now: the current one, plus the previous one within 24 h of the rotation. */
export function signingSecrets(current: string, previous: string | null, rotatedAt: number | null, now: number): string[] {
  const overlapping = previous !== null && rotatedAt !== null && now - rotatedAt < ROTATION_OVERLAP_MS;
  return overlapping ? [current, previous] : [current];
}

export interface SignatureHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/** The three Standard Webhooks headers; `webhook-id` is the event id, stable across retries and replays. */
export function signatureHeaders(
  secrets: readonly string[],
  eventId: string,
  timestampSeconds: number,
  body: string,
): SignatureHeaders {
  if (secrets.length === 0) throw new Error("at least one webhook secret is needed to sign");
  if (!Number.isInteger(timestampSeconds)) throw new Error("webhook timestamp must be whole unix seconds");
  return {
    "webhook-id": eventId,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": secrets.map((s) => signOne(s, eventId, timestampSeconds, body)).join(" "),
  };
}
