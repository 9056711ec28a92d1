// GET /models (docs/api.md "Models"): the whole list in one page. `routable` depends on the key:
// every model is routable for test keys, live keys need the provider enabled.
import { Elysia } from "elysia";
import type { Deps } from "../../pipeline/deps.ts";
import { authPlugin } from "../auth.ts";
import { jsonResponse } from "../context.ts";
import { modelEntry, PROFILE_ENTRIES } from "../serializers/models.ts";

export const modelsRoute = (deps: Deps) => {
  // The two possible answers are prepared once; the catalog does not change while gw runs.
  const build = (test: boolean) => JSON.stringify({
    object: "list",
    data: [...PROFILE_ENTRIES, ...deps.catalog.models.map((m) => modelEntry(m, test || deps.providers.get(m.provider) !== undefined))],
    has_more: false,
  });
  const forTest = build(true);
  const forLive = build(false);
  return new Elysia().use(authPlugin(deps)).get(
    "/models",
    ({ auth, requestId }) => jsonResponse(auth.test ? forTest : forLive, requestId),
    { scope: "models" },
  );
};
