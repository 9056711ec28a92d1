import { ApiPromise, type Core, type RequestOptions } from "./core.js";
import { Stream } from "./streaming.js";
import type { CacheInvalidation, ChatCompletion, ChatCompletionChunk, ChatCompletionCreateParams, EmbeddingCreateParams, EmbeddingList, Feedback, Metrics, ModelList, RequestDetail, RequestListParams, RequestLogEntry, RequestPage, ResponseCreateParams, ResponseObject, ResponseStreamEvent } from "./types.js";
export declare class Completions {
    private readonly core;
    constructor(core: Core);
    create(body: ChatCompletionCreateParams & {
        stream: true;
    }, options?: RequestOptions): Promise<Stream<ChatCompletionChunk>>;
    create(body: ChatCompletionCreateParams & {
        stream?: false;
    }, options?: RequestOptions): ApiPromise<ChatCompletion>;
    create(body: ChatCompletionCreateParams, options?: RequestOptions): ApiPromise<ChatCompletion> | Promise<Stream<ChatCompletionChunk>>;
}
export declare class Chat {
    readonly completions: Completions;
    constructor(core: Core);
}
export declare class Responses {
    private readonly core;
    constructor(core: Core);
    create(body: ResponseCreateParams & {
        stream: true;
    }, options?: RequestOptions): Promise<Stream<ResponseStreamEvent>>;
    create(body: ResponseCreateParams & {
        stream?: false;
    }, options?: RequestOptions): ApiPromise<ResponseObject>;
    create(body: ResponseCreateParams, options?: RequestOptions): ApiPromise<ResponseObject> | Promise<Stream<ResponseStreamEvent>>;
}
export declare class Embeddings {
    private readonly core;
    constructor(core: Core);
    create(body: EmbeddingCreateParams, options?: RequestOptions): ApiPromise<EmbeddingList>;
}
export declare class Models {
    private readonly core;
    constructor(core: Core);
    /** Routing profiles and models; the whole list comes in one page. */
    list(options?: RequestOptions): ApiPromise<ModelList>;
}
export declare class Requests {
    private readonly core;
    constructor(core: Core);
    /** One page of the request log, newest first (needs the `requests` scope). */
    list(params?: RequestListParams, options?: RequestOptions): ApiPromise<RequestPage>;
    /** Every entry matching `params`, page after page (`limit` is the page size). */
    iterate(params?: RequestListParams, options?: RequestOptions): AsyncGenerator<RequestLogEntry>;
    /** One request with its trace; an unknown id raises NotFoundError. */
    get(id: string, options?: RequestOptions): ApiPromise<RequestDetail>;
    /** Rates an answer 1 to 5 (scope `chat`); out of range raises ValidationError. */
    feedback(id: string, body: {
        rating: number;
    }, options?: RequestOptions): ApiPromise<Feedback>;
}
export declare class MetricsResource {
    private readonly core;
    constructor(core: Core);
    get(params?: {
        period?: "1h" | "24h" | "7d" | "30d";
    }, options?: RequestOptions): ApiPromise<Metrics>;
}
export declare class Cache {
    private readonly core;
    constructor(core: Core);
    /** Removes the project's cached answers carrying any of `tags`, or all of them. */
    invalidate(body: {
        tags: string[];
    } | {
        all: true;
    }, options?: RequestOptions): ApiPromise<CacheInvalidation>;
}
