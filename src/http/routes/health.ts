// GET /healthz (the process answers) and GET /readyz (it should get traffic: not stopping, and its
// storage can record requests), outside /v1 and without a key, for load balancers and
// orchestrators (docs/availability.md "Shutdown"). Both carry X-Gw-Api-Version.
import { Elysia } from "elysia";
import { API_VERSION } from "../../config/constants.ts";
import type { Lifecycle } from "../lifecycle.ts";

const headers = { "content-type": "application/json", "x-gw-api-version": API_VERSION, "cache-control": "no-store" };

export const healthRoutes = (lifecycle: Lifecycle) =>
  new Elysia()
    .get("/healthz", () => new Response('{"status":"ok"}', { headers }))
    .get("/readyz", () => {
      const reasons = lifecycle.notReadyReasons();
      if (reasons.length === 0) return new Response('{"status":"ready"}', { headers });
      return new Response(JSON.stringify({ status: "unavailable", reasons }), { status: 503, headers });
    });
