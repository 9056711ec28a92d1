// POST /chat/completions (docs/api.md "Chat completions"): the chat pipeline; streams leave as chat chunks.
import { Elysia } from "elysia";
import type { Deps } from "../../pipeline/deps.ts";
import { authPlugin } from "../auth.ts";
import { servePipeline } from "../pipeline-route.ts";
import { sseResponse } from "../sse.ts";

export const chatCompletionsRoute = (deps: Deps) =>
  new Elysia().use(authPlugin(deps)).post(
    "/chat/completions",
    (ctx) => servePipeline(deps, ctx, "chat.completions", (_state, events, headers) => sseResponse(events, headers)),
    { scope: "chat", parse: "none" },
  );
