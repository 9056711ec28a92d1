import { Admin } from "./admin.js";
import { type ClientOptions } from "./core.js";
import { Cache, Chat, Embeddings, MetricsResource, Models, Requests, Responses } from "./resources.js";
import { Webhooks } from "./webhooks.js";
export declare class Gw {
    readonly chat: Chat;
    readonly responses: Responses;
    readonly embeddings: Embeddings;
    readonly models: Models;
    readonly requests: Requests;
    readonly metrics: MetricsResource;
    readonly cache: Cache;
    readonly webhooks: Webhooks;
    /** The admin API; calls carry `adminToken` (default GW_ADMIN_TOKEN, then apiKey). */
    readonly admin: Admin;
    readonly baseURL: string;
    constructor(options?: ClientOptions);
}
export default Gw;
export { VERSION } from "./version.js";
export { ApiPromise, type ClientOptions, type Fetch, type RequestOptions } from "./core.js";
export { Stream } from "./streaming.js";
export * from "./errors.js";
export { WebhookVerificationError, type WebhookEvent, type WebhookHeaders } from "./webhooks.js";
export type * from "./types.js";
export type { ApiKey, KeyCreateParams, Project, ProjectCreateParams } from "./admin.js";
