// Every response carries X-Gw-Api-Version and X-Gw-Request-Id (contracts.md section 2); every
// error leaves in the envelope of contracts.md, never as a bare 500.
import { Elysia } from "elysia";
import { API_VERSION } from "../config/constants.ts";
import { GwError } from "../errors/gw-error.ts";
import { newRequestId } from "../lib/ids.ts";
import type { Logger } from "../observability/logger.ts";

export const REQUEST_ID_HEADER = "x-gw-request-id";

type Headers = Record<string, string | number>;

/** The request id minted for this request (set as a header before any handler runs). */
export const requestIdOf = (headers: Headers): string => String(headers[REQUEST_ID_HEADER]);

export function errorResponse(error: GwError, headers: Headers): { error: Record<string, unknown> } {
  if (error.retryAfter !== undefined) headers["retry-after"] = String(error.retryAfter);
  return error.toBody(requestIdOf(headers));
}

export const contextPlugin = (logger: Logger) =>
  new Elysia({ name: "gw-context" })
    .onRequest(({ set }) => {
      set.headers["x-gw-api-version"] = API_VERSION;
      set.headers[REQUEST_ID_HEADER] = newRequestId();
    })
    .onError({ as: "global" }, ({ code, error, set, request }) => {
      let gw: GwError;
      if (error instanceof GwError) gw = error;
      else if (code === "NOT_FOUND") {
        gw = new GwError("not_found", `Unknown path: ${request.method} ${new URL(request.url).pathname}`);
      } else if (code === "PARSE" || code === "VALIDATION") {
        gw = new GwError("invalid_request", "The request could not be parsed.");
      } else {
        logger.error({ err: error, request_id: set.headers[REQUEST_ID_HEADER] }, "unhandled error");
        gw = new GwError("internal_error", "The gateway failed to process the request.");
      }
      set.status = gw.status;
      return errorResponse(gw, set.headers as Headers);
    });
