// The public API's operations for the OpenAPI document: request bodies are the TypeBox schemas
// that validate them (src/schema/); answers follow docs/api.md.
import { Type } from "@sinclair/typebox";
import { LIMITS } from "../../config/constants.ts";
import { CacheInvalidateBody } from "../../schema/cache-invalidate.ts";
import { ChatCompletionsBody } from "../../schema/chat-completions.ts";
import { EmbeddingsBody } from "../../schema/embeddings.ts";
import { CountTokensBody, MessagesBody } from "../../ingress/messages/schema.ts";
import { METRICS_PERIODS } from "../../schema/metrics.ts";
import { ResponsesBody } from "../../schema/responses.ts";
import { listOf, schemaRef } from "./components.ts";
import type { OperationTable, QueryParam } from "./types.ts";

const Str = Type.String();
const open = { additionalProperties: true } as const;
const gw = Type.Unsafe(schemaRef("GwObject"));
const usage = Type.Record(Str, Type.Unknown());

const ChatCompletion = Type.Object({
  id: Str, object: Type.Literal("chat.completion"), created: Type.Integer(), model: Str,
  choices: Type.Array(Type.Record(Str, Type.Unknown())), usage, gw,
}, { ...open, description: "OpenAI's chat.completion, `model` the selected model's id." });
const Response = Type.Object({
  id: Type.String({ pattern: "^resp_" }), object: Type.Literal("response"), created_at: Type.Integer(),
  status: Type.Union([Type.Literal("completed"), Type.Literal("incomplete")]),
  output: Type.Array(Type.Record(Str, Type.Unknown())), output_text: Str, usage, gw,
}, open);
const Embeddings = Type.Object({
  object: Type.Literal("list"), model: Str, usage, gw,
  data: Type.Array(Type.Object({
    object: Type.Literal("embedding"), index: Type.Integer({ minimum: 0 }),
    embedding: Type.Union([Type.Array(Type.Number()), Type.String({ description: "base64 of float32 values, little-endian" })]),
  })),
}, open);
const LogEntry = Type.Object({
  request_id: Str, trace_id: Str, created_at: Type.String({ format: "date-time" }), requested_model: Type.Union([Str, Type.Null()]),
  selected_model: Type.Union([Str, Type.Null()]), provider: Type.Union([Str, Type.Null()]), status: Type.Integer(),
  cost: Type.Number(), saved: Type.Number(), latency_ms: Type.Union([Type.Number(), Type.Null()]),
}, { ...open, description: 'docs/api.md "Request log"; more fields may appear.' });
const RequestDetail = Type.Intersect([LogEntry, Type.Object({
  object: Type.Literal("request"), versions: Type.Record(Str, Type.Unknown()), overhead_ms: Type.Union([Type.Number(), Type.Null()]),
  trace: Type.Union([Type.Record(Str, Type.Unknown()), Type.Null()]),
}, open)]);

/** docs/anthropic.md "Errors": Anthropic's envelope, gw's code, param and category riding along. */
const AnthropicError = Type.Object({
  type: Type.Literal("error"),
  error: Type.Object({ type: Str, message: Str, code: Type.Union([Str, Type.Null()]), param: Type.Union([Str, Type.Null()]), category: Type.Union([Str, Type.Null()]) }, open),
  request_id: Type.Union([Str, Type.Null()]),
});

const SSE = "Server-sent events when `stream` is true";
const text = (name: string, description: string): QueryParam => ({ name, description, schema: { type: "string", minLength: 1, maxLength: 200 } });

export const API_OPERATIONS: OperationTable = {
  "POST /v1/chat/completions": {
    summary: "Create a chat completion", tag: "Chat", docs: 'docs/api.md "Chat completions"', auth: "chat", pipeline: true,
    body: ChatCompletionsBody,
    ok: { status: 200, description: "The completion with its gw object.", schema: ChatCompletion, stream: `${SSE}: chat.completion.chunk lines, a gw.summary chunk, then [DONE].` },
  },
  "POST /v1/responses": {
    summary: "Create a response (the Responses API over the chat pipeline)", tag: "Chat", docs: 'docs/api.md "Responses"', auth: "chat", pipeline: true,
    body: ResponsesBody,
    ok: { status: 200, description: "The response with its gw object.", schema: Response, stream: `${SSE}: typed response.* events.` },
  },
  "POST /v1/embeddings": {
    summary: "Create embeddings", tag: "Embeddings", docs: 'docs/api.md "Embeddings"', auth: "embeddings", pipeline: true,
    body: EmbeddingsBody,
    ok: { status: 200, description: "The vectors with their gw object.", schema: Embeddings },
  },
  "POST /v1/messages": {
    summary: "Create a message (Anthropic's Messages API over the chat pipeline)", tag: "Messages", docs: 'docs/anthropic.md "Mapping"', auth: "messages", pipeline: true,
    body: MessagesBody, errorSchema: AnthropicError,
    ok: { status: 200, description: "An Anthropic message with gw's object.", schema: Type.Object({ type: Type.Literal("message"), id: Str }, open), stream: `${SSE}: Anthropic's message_start ... message_stop.` },
  },
  "POST /v1/messages/count_tokens": {
    summary: "Count a Messages request's input tokens", tag: "Messages", docs: 'docs/anthropic.md "count_tokens"', auth: "messages",
    body: CountTokensBody, errorSchema: AnthropicError,
    ok: { status: 200, description: "The count.", schema: Type.Object({ input_tokens: Type.Integer({ minimum: 0 }) }, open) },
  },
  "GET /v1/models": {
    summary: "List routing profiles and models", tag: "Models", docs: 'docs/api.md "Models"', auth: "models",
    ok: { status: 200, description: "The whole list in one page.", schema: listOf(schemaRef("Model")) },
  },
  "GET /v1/models/*": {
    summary: "Retrieve one profile or model", tag: "Models", docs: 'docs/api.md "Models"', auth: "models",
    ok: { status: 200, description: "The list's entry for this id.", schema: schemaRef("Model") },
  },
  "GET /v1/requests": {
    summary: "List the project's requests, newest first", tag: "Requests", docs: 'docs/api.md "Request log"', auth: "requests",
    query: [
      { name: "limit", description: "Page size.", schema: { type: "integer", minimum: 1, maximum: LIMITS.requestsPageMax, default: LIMITS.requestsPageDefault } },
      text("after", "The previous page's `last_id`."), text("model", "Only requests answered by this model."),
      { name: "status", description: "Only this HTTP status.", schema: { type: "integer", minimum: 100, maximum: 599 } },
      text("workflow_id", "Only this agent workflow."), text("trace_id", "Only this trace."),
    ],
    ok: { status: 200, description: "A page of entries.", schema: listOf(LogEntry, { last_id: Type.Union([Str, Type.Null()]) }) },
  },
  "GET /v1/requests/:request_id": {
    summary: "One request with its trace", tag: "Requests", docs: 'docs/api.md "Request detail"', auth: "requests",
    ok: { status: 200, description: "The entry, versions, overhead and trace.", schema: RequestDetail },
  },
  "POST /v1/requests/:request_id/feedback": {
    summary: "Rate an answer", tag: "Requests", docs: 'docs/api.md "Feedback"', auth: "chat", fieldErrors: true,
    body: Type.Object({ rating: Type.Integer({ minimum: 1, maximum: 5 }) }),
    ok: { status: 200, description: "The rating kept.", schema: Type.Object({ object: Type.Literal("feedback"), request_id: Str, rating: Type.Integer() }) },
  },
  "GET /v1/metrics": {
    summary: "The project's metrics over a period", tag: "Requests", docs: 'docs/api.md "Metrics"', auth: "requests",
    query: [{ name: "period", description: "The window.", schema: { type: "string", enum: Object.keys(METRICS_PERIODS), default: "24h" } }],
    ok: { status: 200, description: "Metrics from rollups.", schema: schemaRef("Metrics") },
  },
  "POST /v1/cache/invalidate": {
    summary: "Remove the project's cached answers by tags or all", tag: "Cache", docs: 'docs/api.md "Cache invalidation"', auth: "cache", fieldErrors: true,
    body: CacheInvalidateBody,
    ok: { status: 200, description: "How many answers went.", schema: Type.Object({ object: Type.Literal("cache.invalidation"), deleted: Type.Integer({ minimum: 0 }) }) },
  },
  "GET /v1/openapi.json": {
    summary: "This document", tag: "Meta", docs: 'docs/api.md "OpenAPI"', auth: "none",
    ok: { status: 200, description: "OpenAPI 3.1.", schema: Type.Object({ openapi: Str }, open) },
  },
  "GET /healthz": {
    summary: "Liveness, for load balancers", tag: "Meta", docs: 'docs/api.md "Endpoints"', auth: "none",
    ok: { status: 200, description: "The process is alive.", schema: Type.Object({ status: Type.Literal("ok") }) },
  },
  "GET /readyz": {
    summary: "Readiness, for load balancers", tag: "Meta", docs: 'docs/api.md "Endpoints"', auth: "none",
    ok: { status: 200, description: "Ready.", schema: Type.Object({ status: Type.Literal("ready") }, open) },
    other: [{
      status: 503, description: "Starting, loading the sentence model, stopping, unable to record requests, or no provider: the failing checks (docs/availability.md \"Readiness\").",
      schema: Type.Object({ status: Type.Literal("unavailable"), reasons: Type.Array(Str) }, open),
    }],
  },
  "GET /status.json": {
    summary: "The public status page as JSON", tag: "Meta", docs: 'docs/monitoring.md "Serving"', auth: "none",
    ok: { status: 200, description: "Components, incidents and maintenance windows.", schema: Type.Object({}, open) },
  },
};
