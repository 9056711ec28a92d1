export declare class WebhookVerificationError extends Error {
    constructor(message: string);
}
/** A Headers object, or a plain map such as Node's `req.headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;
/** The event envelope of every delivery (docs/webhooks.md "The event envelope"). */
export interface WebhookEvent {
    id: string;
    type: string;
    version: string;
    timestamp: string;
    project_id: string;
    data: Record<string, unknown>;
    [key: string]: unknown;
}
export declare class Webhooks {
    /**
     * Checks a delivery against `secret` ("whsec_..."): signature and timestamp within five minutes.
     * Pass the raw body, before any JSON parsing. Answers the parsed event; throws
     * WebhookVerificationError on any failure.
     */
    verify(body: string | Uint8Array, headers: WebhookHeaders, secret: string, options?: {
        now?: Date;
    }): WebhookEvent;
}
