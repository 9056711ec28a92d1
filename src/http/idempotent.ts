// Idempotency-Key on the three POST endpoints (gateway-api.md 4.14). STUB: the route runs as is.
// The real implementation claims the key, replays stored results and stores new ones.
import type { AuthContext } from "../auth/api-keys.ts";
import type { Deps } from "../deps.ts";
import type { Endpoint } from "../pipeline/state.ts";

export interface IdempotentContext {
  request: Request;
  requestId: string;
  auth: AuthContext;
}

/** Runs `run` under the request's Idempotency-Key, if it has one. `run` receives the body text
 * when this layer had to read it (to hash it), else undefined (the pipeline reads it). */
export async function withIdempotency(
  _deps: Deps,
  _ctx: IdempotentContext,
  _endpoint: Endpoint,
  run: (bodyText: string | undefined) => Promise<Response>,
): Promise<Response> {
  return run(undefined);
}
