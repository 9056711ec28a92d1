// The token engine's thread (docs/optimization.md "Where it runs"): large requests are optimised here,
// off the request thread, so no request waits for another's engine run. One job at a time, in order.
import { preloadTokenizer } from "../analysis/tokens.ts";
import { optimizeRequest, stageContext } from "./engine.ts";
import { STAGES } from "./stages/index.ts";
import type { EngineJob, EngineReply } from "./worker-protocol.ts";

declare const self: Worker;

preloadTokenizer();
self.onmessage = (event: MessageEvent<EngineJob>) => {
  const { id, request, options, windowTokens } = event.data;
  let reply: EngineReply;
  try {
    const out = optimizeRequest(request, stageContext(request, options, windowTokens), STAGES);
    // An unchanged request is not sent back: the caller keeps its own.
    reply = { type: "done", id, request: out.request === request ? null : out.request, trace: out.trace };
  } catch (err) {
    reply = { type: "failed", id, error: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(reply);
};
self.postMessage({ type: "ready" } satisfies EngineReply);
