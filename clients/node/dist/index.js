// gw-client: the Node.js/TypeScript client for gw (README.md shows the surface).
import { Admin } from "./admin.js";
import { Core } from "./core.js";
import { Cache, Chat, Embeddings, MetricsResource, Models, Requests, Responses } from "./resources.js";
import { Webhooks } from "./webhooks.js";
export class Gw {
    chat;
    responses;
    embeddings;
    models;
    requests;
    metrics;
    cache;
    webhooks;
    /** The admin API; calls carry `adminToken` (default GW_ADMIN_TOKEN, then apiKey). */
    admin;
    baseURL;
    constructor(options = {}) {
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
export { ApiPromise } from "./core.js";
export { Stream } from "./streaming.js";
export * from "./errors.js";
export { WebhookVerificationError } from "./webhooks.js";
