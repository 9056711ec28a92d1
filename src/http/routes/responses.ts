// POST /responses (docs/api.md "Responses"): the chat pipeline behind the Responses codec; streams
// leave as typed Responses events.
import { Elysia } from "elysia";
import { responsesToChatBody } from "../../ingress/responses/request.ts";
import { responseBody } from "../../ingress/responses/response.ts";
import { responsesStream } from "../../ingress/responses/stream.ts";
import type { Deps } from "../../pipeline/deps.ts";
import { authPlugin } from "../auth.ts";
import { servePipeline, type EndpointCodec } from "../pipeline-route.ts";
import { responsesSseResponse } from "../sse.ts";

/** The Responses body becomes a chat body in the pipeline's parse stage (its refusals are logged
 * parse failures); the answer and the stream are written back as Responses objects and events. */
const responses: EndpointCodec = {
  decode: responsesToChatBody,
  json: (state, answer) => responseBody(state, answer.completion, answer.gw),
  stream: (state, events, headers) => responsesSseResponse(responsesStream(state, events), headers),
};

export const responsesRoute = (deps: Deps) =>
  new Elysia().use(authPlugin(deps)).post(
    "/responses",
    // Destructured, as in chat-completions.ts: a whole context makes Elysia parse cookies per request.
    ({ request, requestId, auth, t0, authMs, addressRefusal, server }) =>
      servePipeline(deps, { request, requestId, auth, t0, authMs, addressRefusal, server }, "responses", responses),
    { scope: "chat", parse: "none" },
  );
