// One request-log row as gw writes it (docs/api.md "Request log"): the record stage builds it, the
// log codec encodes it, the requests repo stores and reads it.
import type { JsonObject } from "../lib/json.ts";

export interface RequestRecord {
  id: string;
  projectId: string;
  keyId: string | null;
  traceId: string;
  createdAt: number;
  endpoint: string;
  requestedModel: string | null;
  selectedModel: string | null;
  provider: string | null;
  task: string | null;
  taskSubtype: string | null;
  inputTokens: number;
  outputTokens: number;
  cost: number;
  saved: number;
  cache: string | null;
  status: number;
  errorCode: string | null;
  errorMessage: string | null;
  errorCategory: string | null;
  latencyMs: number;
  ttftMs: number | null;
  overheadMs: number | null;
  fallbacks: number;
  workflowId: string | null;
  step: string | null;
  tags: string[];
  stream: boolean;
  test: boolean;
  /** Null when the trace was not kept. */
  trace: JsonObject | null;
}
