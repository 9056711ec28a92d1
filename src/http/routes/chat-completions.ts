// POST /chat/completions (docs/api.md "Chat completions"): the chat pipeline; streams leave as chat chunks.
import { Elysia } from "elysia";
import { completionBody } from "../../pipeline/completion-body.ts";
import type { Deps } from "../../pipeline/deps.ts";
import { authPlugin } from "../auth.ts";
import { servePipeline, type EndpointCodec } from "../pipeline-route.ts";
import { sseResponse } from "../sse.ts";

const chat: EndpointCodec = {
  json: (_state, answer) => completionBody(answer.completion, answer.model, answer.gw),
  stream: (_state, events, headers) => sseResponse(events, headers),
};

export const chatCompletionsRoute = (deps: Deps) =>
  new Elysia().use(authPlugin(deps)).post(
    "/chat/completions",
    // Destructured: Elysia reads handlers' source, and a whole context handed on makes it parse
    // cookies, copy the headers and rebuild the Response on every request (http/pipeline-route.ts).
    ({ request, requestId, auth, t0, authMs, addressRefusal, server }) =>
      servePipeline(deps, { request, requestId, auth, t0, authMs, addressRefusal, server }, "chat.completions", chat),
    { scope: "chat", parse: "none" },
  );
