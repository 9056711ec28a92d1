// The OpenAPI document's route under /v1 (docs/api.md "OpenAPI"): no key; made on the first call from the app's
// routes, which do not change while gw runs, then answered from memory.
import { Elysia } from "elysia";
import { API_BASE_PATH } from "../../config/constants.ts";
import { jsonResponse, requestIdPlugin } from "../context.ts";
import { openApiDocument, type RouteRef } from "./document.ts";

export const openApiRoute = (routes: () => readonly RouteRef[]) => {
  let body: string | null = null;
  return new Elysia().use(requestIdPlugin).get(`${API_BASE_PATH}/openapi.json`, ({ requestId }) => {
    body ??= JSON.stringify(openApiDocument(routes()));
    return jsonResponse(body, requestId);
  });
};
