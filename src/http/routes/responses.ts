// POST /responses (docs/api.md "Responses"): the chat pipeline behind the Responses codec; streams
// leave as typed Responses events.
import { Elysia } from "elysia";
import { responsesStream } from "../../ingress/responses/stream.ts";
import type { Deps } from "../../pipeline/deps.ts";
import { authPlugin } from "../auth.ts";
import { servePipeline } from "../pipeline-route.ts";
import { responsesSseResponse } from "../sse.ts";

export const responsesRoute = (deps: Deps) =>
  new Elysia().use(authPlugin(deps)).post(
    "/responses",
    (ctx) => servePipeline(deps, ctx, "responses", (state, events, headers) => responsesSseResponse(responsesStream(state, events), headers)),
    { scope: "chat", parse: "none" },
  );
