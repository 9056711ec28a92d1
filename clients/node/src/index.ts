// gw-client: the Node.js/TypeScript client for gw (README.md shows the surface).
import { Admin } from "./admin.js";
import { type ClientOptions, Core } from "./core.js";
import { Cache, Chat, Embeddings, MetricsResource, Models, Requests, Responses } from "./resources.js";
import { Webhooks } from "./webhooks.js";

export class Gw {
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

  constructor(options: ClientOptions = {}) {
    const core = new Core(options);
    this.baseURL = core.baseURL;
    this.chat = new Chat(core);
    this.responses = new Responses(core);
    this.embeddings = new Embeddings(core);
    this.models = new Models(core);
    this.requests = new Requests(core);
    this.metrics = new MetricsResource(core);
    this.cache = new Cache(core);
    this.webhooks = new Webhooks();
    this.admin = new Admin(core);
  }
}

export default Gw;
export { VERSION } from "./version.js";
export { ApiPromise, type ClientOptions, type Fetch, type RequestOptions } from "./core.js";
export { Stream } from "./streaming.js";
export * from "./errors.js";
export { WebhookVerificationError, type WebhookEvent, type WebhookHeaders } from "./webhooks.js";
export type * from "./types.js";
export type { ApiKey, KeyCreateParams, Project, ProjectCreateParams } from "./admin.js";
