// Standard Webhooks verification of gw's deliveries (docs/webhooks.md "Verifying a delivery"):
// HMAC-SHA256 of "{id}.{timestamp}.{body}" with the secret after `whsec_`, five minutes' tolerance.
import { createHmac, timingSafeEqual } from "node:crypto";
const TOLERANCE_SECONDS = 5 * 60;
export class WebhookVerificationError extends Error {
    constructor(message) {
        super(message);
        this.name = "WebhookVerificationError";
    }
}
function header(headers, name) {
    if (typeof Headers !== "undefined" && headers instanceof Headers)
        return headers.get(name) ?? undefined;
    const map = headers;
    const key = Object.keys(map).find((k) => k.toLowerCase() === name);
    const value = key === undefined ? undefined : map[key];
    return Array.isArray(value) ? value[0] : value;
}
export class Webhooks {
    /**
     * Checks a delivery against `secret` ("whsec_..."): signature and timestamp within five minutes.
     * Pass the raw body, before any JSON parsing. Answers the parsed event; throws
     * WebhookVerificationError on any failure.
     */
    verify(body, headers, secret, options = {}) {
        const id = header(headers, "webhook-id");
        const timestamp = header(headers, "webhook-timestamp");
        const signatures = header(headers, "webhook-signature");
        if (!id || !timestamp || !signatures)
            throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature");
        const seconds = Number(timestamp);
        if (!/^\d+$/.test(timestamp) || !Number.isSafeInteger(seconds))
            throw new WebhookVerificationError("invalid webhook-timestamp");
        const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
        if (Math.abs(now - seconds) > TOLERANCE_SECONDS)
            throw new WebhookVerificationError("webhook-timestamp is more than five minutes away");
        const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
        if (key.length === 0)
            throw new WebhookVerificationError("empty webhook secret");
        const raw = typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body);
        const expected = createHmac("sha256", key).update(`${id}.${timestamp}.`).update(raw).digest();
        const matches = signatures.split(" ").some((part) => {
            const [version, value] = part.split(",", 2);
            if (version !== "v1" || !value)
                return false;
            const given = Buffer.from(value, "base64");
            return given.length === expected.length && timingSafeEqual(given, expected);
        });
        if (!matches)
            throw new WebhookVerificationError("no matching signature");
        try {
            return JSON.parse(raw.toString("utf8"));
        }
        catch {
            throw new WebhookVerificationError("the body is not JSON");
        }
    }
}
