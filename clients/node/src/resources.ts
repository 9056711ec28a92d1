// The project-key API: models (chat, responses, embeddings, models) and gw's extensions (request
// log, feedback, metrics, cache invalidation); docs/api.md lists the endpoints.
import { ApiPromise, type Core, type RequestOptions } from "./core.js";
import { Stream, chatStep, responseStep } from "./streaming.js";
import type {
  CacheInvalidation, ChatCompletion, ChatCompletionChunk, ChatCompletionCreateParams, EmbeddingCreateParams,
  EmbeddingList, Feedback, Metrics, ModelList, RequestDetail, RequestListParams, RequestLogEntry, RequestPage,
  ResponseCreateParams, ResponseObject, ResponseStreamEvent,
} from "./types.js";

async function openStream<T>(core: Core, path: string, body: object, options: RequestOptions | undefined,
  step: typeof chatStep<T>): Promise<Stream<T>> {
  const { response } = await core.send({ method: "POST", path, body, options, idempotent: true, stream: true });
  return new Stream<T>(response, step);
}

export class Completions {
  constructor(private readonly core: Core) {}

  create(body: ChatCompletionCreateParams & { stream: true }, options?: RequestOptions): Promise<Stream<ChatCompletionChunk>>;
  create(body: ChatCompletionCreateParams & { stream?: false }, options?: RequestOptions): ApiPromise<ChatCompletion>;
  create(body: ChatCompletionCreateParams, options?: RequestOptions): ApiPromise<ChatCompletion> | Promise<Stream<ChatCompletionChunk>>;
  create(body: ChatCompletionCreateParams, options?: RequestOptions): ApiPromise<ChatCompletion> | Promise<Stream<ChatCompletionChunk>> {
    if (body.stream) return openStream<ChatCompletionChunk>(this.core, "/chat/completions", body, options, chatStep);
    return new ApiPromise(this.core.json<ChatCompletion>({ method: "POST", path: "/chat/completions", body, options, idempotent: true }));
  }
}

export class Chat {
  readonly completions: Completions;
  constructor(core: Core) {
    this.completions = new Completions(core);
  }
}

export class Responses {
  constructor(private readonly core: Core) {}

  create(body: ResponseCreateParams & { stream: true }, options?: RequestOptions): Promise<Stream<ResponseStreamEvent>>;
  create(body: ResponseCreateParams & { stream?: false }, options?: RequestOptions): ApiPromise<ResponseObject>;
  create(body: ResponseCreateParams, options?: RequestOptions): ApiPromise<ResponseObject> | Promise<Stream<ResponseStreamEvent>>;
  create(body: ResponseCreateParams, options?: RequestOptions): ApiPromise<ResponseObject> | Promise<Stream<ResponseStreamEvent>> {
    if (body.stream) return openStream<ResponseStreamEvent>(this.core, "/responses", body, options, responseStep);
    return new ApiPromise(this.core.json<ResponseObject>({ method: "POST", path: "/responses", body, options, idempotent: true }));
  }
}

export class Embeddings {
  constructor(private readonly core: Core) {}

  create(body: EmbeddingCreateParams, options?: RequestOptions): ApiPromise<EmbeddingList> {
    return new ApiPromise(this.core.json<EmbeddingList>({ method: "POST", path: "/embeddings", body, options, idempotent: true }));
  }
}

export class Models {
  constructor(private readonly core: Core) {}

  /** Routing profiles and models; the whole list comes in one page. */
  list(options?: RequestOptions): ApiPromise<ModelList> {
    return new ApiPromise(this.core.json<ModelList>({ method: "GET", path: "/models", options }));
  }
}

interface WirePage {
  data: RequestLogEntry[];
  has_more: boolean;
  last_id: string | null;
}

export class Requests {
  constructor(private readonly core: Core) {}

  /** One page of the request log, newest first (needs the `requests` scope). */
  list(params: RequestListParams = {}, options?: RequestOptions): ApiPromise<RequestPage> {
    const query = {
      limit: params.limit, after: params.after, model: params.model, status: params.status,
      workflow_id: params.workflowId, trace_id: params.traceId,
    };
    const page = this.core.json<WirePage>({ method: "GET", path: "/requests", query, options })
      .then(({ data, response }) => ({ data: { data: data.data, hasMore: data.has_more, lastId: data.last_id ?? null }, response }));
    return new ApiPromise(page);
  }

  /** Every entry matching `params`, page after page (`limit` is the page size). */
  async *iterate(params: RequestListParams = {}, options?: RequestOptions): AsyncGenerator<RequestLogEntry> {
    let after = params.after;
    for (;;) {
      const page = await this.list({ ...params, after }, options);
      yield* page.data;
      if (!page.hasMore || !page.lastId) return;
      after = page.lastId;
    }
  }

  /** One request with its trace; an unknown id raises NotFoundError. */
  get(id: string, options?: RequestOptions): ApiPromise<RequestDetail> {
    return new ApiPromise(this.core.json<RequestDetail>({ method: "GET", path: `/requests/${encodeURIComponent(id)}`, options }));
  }

  /** Rates an answer 1 to 5 (scope `chat`); out of range raises ValidationError. */
  feedback(id: string, body: { rating: number }, options?: RequestOptions): ApiPromise<Feedback> {
    const path = `/requests/${encodeURIComponent(id)}/feedback`;
    return new ApiPromise(this.core.json<Feedback>({ method: "POST", path, body, options }));
  }
}

export class MetricsResource {
  constructor(private readonly core: Core) {}

  get(params: { period?: "1h" | "24h" | "7d" | "30d" } = {}, options?: RequestOptions): ApiPromise<Metrics> {
    return new ApiPromise(this.core.json<Metrics>({ method: "GET", path: "/metrics", query: { period: params.period }, options }));
  }
}

export class Cache {
  constructor(private readonly core: Core) {}

  /** Removes the project's cached answers carrying any of `tags`, or all of them. */
  invalidate(body: { tags: string[] } | { all: true }, options?: RequestOptions): ApiPromise<CacheInvalidation> {
    return new ApiPromise(this.core.json<CacheInvalidation>({ method: "POST", path: "/cache/invalidate", body, options }));
  }
}
