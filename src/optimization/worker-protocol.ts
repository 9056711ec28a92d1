// Messages between the request thread and the token engine's worker (worker.ts, engine-worker.ts):
// structured-cloned both ways, so only plain data.
import type { ChatRequest } from "../canonical/chat.ts";
import type { OptimizationOptions, OptimizationTrace } from "./types.ts";

export interface EngineJob {
  id: number;
  request: ChatRequest;
  options: OptimizationOptions;
  windowTokens: number | null;
}

export type EngineReply =
  | { type: "ready" }
  | { type: "done"; id: number; request: ChatRequest | null; trace: OptimizationTrace }
  | { type: "failed"; id: number; error: string };
