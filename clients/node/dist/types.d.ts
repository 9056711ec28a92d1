/** The `gw` object on completions, responses and stream summaries. */
export interface GwInfo {
    request_id: string;
    selected_model: string;
    provider: string;
    cost: number;
    saved: number;
    cache: "exact" | "semantic" | null;
    similarity?: number;
    fallbacks: number;
    test: boolean;
    [key: string]: unknown;
}
export interface ChatMessage {
    role: "system" | "developer" | "user" | "assistant" | "tool";
    content: string | null | Array<{
        type: string;
        [key: string]: unknown;
    }>;
    name?: string;
    tool_calls?: Array<{
        id: string;
        type: "function";
        function: {
            name: string;
            arguments: string;
        };
    }>;
    tool_call_id?: string;
}
/** gw's extension fields (docs/api.md "Extension body fields"). */
export interface GwExtensions {
    routing?: {
        mode?: "economy" | "balanced" | "quality" | "max";
        min_quality?: number;
    };
    max_cost?: number;
    optimization?: Record<string, unknown>;
    metadata?: Record<string, unknown>;
    tags?: string[];
    cache?: {
        mode?: "bypass" | "default";
        refresh?: boolean;
        tags?: string[];
    };
    gw?: Record<string, unknown>;
    user?: string;
}
export interface ChatCompletionCreateParams extends GwExtensions {
    model?: string;
    messages: ChatMessage[];
    tools?: unknown[];
    tool_choice?: unknown;
    response_format?: {
        type: "json_object" | "json_schema" | "text";
        [key: string]: unknown;
    };
    max_tokens?: number;
    max_completion_tokens?: number;
    temperature?: number;
    top_p?: number;
    stop?: string | string[];
    n?: number;
    stream?: boolean;
    stream_options?: {
        include_usage?: boolean;
    };
}
export interface Usage {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    [key: string]: unknown;
}
export interface ChatCompletion {
    id: string;
    object: "chat.completion";
    created: number;
    model: string;
    choices: Array<{
        index: number;
        message: ChatMessage;
        finish_reason: string | null;
    }>;
    usage: Usage;
    gw: GwInfo;
    [key: string]: unknown;
}
export interface ChatCompletionChunk {
    id: string;
    object: "chat.completion.chunk";
    created: number;
    model: string;
    choices: Array<{
        index: number;
        delta: Partial<ChatMessage>;
        finish_reason: string | null;
    }>;
    usage?: Usage | null;
    [key: string]: unknown;
}
export interface ResponseCreateParams extends GwExtensions {
    model?: string;
    input: string | Array<{
        role: string;
        content: string | Array<Record<string, unknown>>;
    }>;
    instructions?: string;
    max_output_tokens?: number;
    temperature?: number;
    top_p?: number;
    tools?: unknown[];
    tool_choice?: unknown;
    stream?: boolean;
}
export interface ResponseObject {
    id: string;
    object: "response";
    created_at: number;
    model: string;
    status: string;
    output_text: string;
    output: Array<Record<string, unknown>>;
    usage: {
        input_tokens: number;
        output_tokens: number;
        total_tokens: number;
        input_tokens_details?: {
            cached_tokens: number;
        };
    };
    gw: GwInfo;
    [key: string]: unknown;
}
/** The typed events of a streamed Responses call. */
export type ResponseStreamEvent = {
    type: "response.created";
    response: Partial<ResponseObject>;
} | {
    type: "response.output_text.delta";
    delta: string;
    item_id: string;
} | {
    type: "response.completed";
    response: ResponseObject;
} | {
    type: string;
    [key: string]: unknown;
};
export interface EmbeddingCreateParams {
    input: string | string[];
    model?: string;
    dimensions?: number;
    encoding_format?: "float" | "base64";
}
export interface EmbeddingList {
    object: "list";
    data: Array<{
        object: "embedding";
        index: number;
        embedding: number[] | string;
    }>;
    model: string;
    usage: {
        prompt_tokens: number;
        total_tokens: number;
    };
}
export interface Model {
    id: string;
    object: "model";
    owned_by: string;
    created: number;
    gw: Record<string, unknown>;
}
export interface ModelList {
    object: "list";
    data: Model[];
    has_more: boolean;
}
/** A request log entry (docs/api.md "Request log"). */
export interface RequestLogEntry {
    request_id: string;
    trace_id: string;
    created_at: string;
    requested_model: string;
    selected_model: string;
    provider: string;
    input_tokens: number;
    output_tokens: number;
    cost: number;
    saved: number;
    cache: "exact" | "semantic" | null;
    status: number;
    error: unknown;
    error_category: string | null;
    latency_ms: number;
    ttft_ms: number | null;
    fallbacks: number;
    workflow_id: string | null;
    step: string | null;
    tags: string[];
    [key: string]: unknown;
}
/** One request with its trace (docs/api.md "Request detail"). */
export interface RequestDetail extends RequestLogEntry {
    trace?: TraceDetail | null;
}
/** A request's trace: spans, then sections (docs/observability.md "Traces"). */
export interface TraceDetail {
    trace_id: string;
    spans: Array<{
        span_id: string;
        parent_span_id: string | null;
        name: string;
        start_ms: number;
        duration_ms: number;
        status: string;
        error_code: string | null;
    }>;
    session?: {
        id: string;
        [key: string]: unknown;
    } | null;
    [key: string]: unknown;
}
export interface RequestListParams {
    limit?: number;
    after?: string;
    model?: string;
    status?: number;
    workflowId?: string;
    traceId?: string;
}
/** One page of the request log; pass `lastId` as `after` for the next one. */
export interface RequestPage {
    data: RequestLogEntry[];
    hasMore: boolean;
    lastId: string | null;
}
export interface Feedback {
    object: "feedback";
    request_id: string;
    rating: number;
}
export interface Metrics {
    object: "metrics";
    period: "1h" | "24h" | "7d" | "30d";
    requests: number;
    availability: number;
    latency: {
        p50: number | null;
        p95: number | null;
        p99: number | null;
    };
    ttft: {
        p50: number | null;
        p95: number | null;
    };
    error_rate: number;
    fallback_rate: number;
    errors: Record<string, number>;
    cost: number;
    saved: number;
    cost_per_request: number;
    [key: string]: unknown;
}
export interface CacheInvalidation {
    object: "cache.invalidation";
    deleted: number;
}
