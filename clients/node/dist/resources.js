// The project-key API: models (chat, responses, embeddings, models) and gw's extensions (request
// log, feedback, metrics, cache invalidation); docs/api.md lists the endpoints.
import { ApiPromise } from "./core.js";
import { Stream, chatStep, responseStep } from "./streaming.js";
async function openStream(core, path, body, options, step) {
    const { response } = await core.send({ method: "POST", path, body, options, idempotent: true, stream: true });
    return new Stream(response, step);
}
export class Completions {
    core;
    constructor(core) {
        this.core = core;
    }
    create(body, options) {
        if (body.stream)
            return openStream(this.core, "/chat/completions", body, options, chatStep);
        return new ApiPromise(this.core.json({ method: "POST", path: "/chat/completions", body, options, idempotent: true }));
    }
}
export class Chat {
    completions;
    constructor(core) {
        this.completions = new Completions(core);
    }
}
export class Responses {
    core;
    constructor(core) {
        this.core = core;
    }
    create(body, options) {
        if (body.stream)
            return openStream(this.core, "/responses", body, options, responseStep);
        return new ApiPromise(this.core.json({ method: "POST", path: "/responses", body, options, idempotent: true }));
    }
}
export class Embeddings {
    core;
    constructor(core) {
        this.core = core;
    }
    create(body, options) {
        return new ApiPromise(this.core.json({ method: "POST", path: "/embeddings", body, options, idempotent: true }));
    }
}
export class Models {
    core;
    constructor(core) {
        this.core = core;
    }
    /** Routing profiles and models; the whole list comes in one page. */
    list(options) {
        return new ApiPromise(this.core.json({ method: "GET", path: "/models", options }));
    }
}
export class Requests {
    core;
    constructor(core) {
        this.core = core;
    }
    /** One page of the request log, newest first (needs the `requests` scope). */
    list(params = {}, options) {
        const query = {
            limit: params.limit, after: params.after, model: params.model, status: params.status,
            workflow_id: params.workflowId, trace_id: params.traceId,
        };
        const page = this.core.json({ method: "GET", path: "/requests", query, options })
            .then(({ data, response }) => ({ data: { data: data.data, hasMore: data.has_more, lastId: data.last_id ?? null }, response }));
        return new ApiPromise(page);
    }
    /** Every entry matching `params`, page after page (`limit` is the page size). */
    async *iterate(params = {}, options) {
        let after = params.after;
        for (;;) {
            const page = await this.list({ ...params, after }, options);
            yield* page.data;
            if (!page.hasMore || !page.lastId)
                return;
            after = page.lastId;
        }
    }
    /** One request with its trace; an unknown id raises NotFoundError. */
    get(id, options) {
        return new ApiPromise(this.core.json({ method: "GET", path: `/requests/${encodeURIComponent(id)}`, options }));
    }
    /** Rates an answer 1 to 5 (scope `chat`); out of range raises ValidationError. */
    feedback(id, body, options) {
        const path = `/requests/${encodeURIComponent(id)}/feedback`;
        return new ApiPromise(this.core.json({ method: "POST", path, body, options }));
    }
}
export class MetricsResource {
    core;
    constructor(core) {
        this.core = core;
    }
    get(params = {}, options) {
        return new ApiPromise(this.core.json({ method: "GET", path: "/metrics", query: { period: params.period }, options }));
    }
}
export class Cache {
    core;
    constructor(core) {
        this.core = core;
    }
    /** Removes the project's cached answers carrying any of `tags`, or all of them. */
    invalidate(body, options) {
        return new ApiPromise(this.core.json({ method: "POST", path: "/cache/invalidate", body, options }));
    }
}
