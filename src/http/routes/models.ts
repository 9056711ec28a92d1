// GET /models and GET /models/{id} (docs/api.md "Models"): the whole list in one page, or one entry.
// `routable` depends on the key: every model is routable for test keys, live keys need the provider enabled.
import { Elysia } from "elysia";
import { GwError } from "../../errors/gw-error.ts";
import type { Deps } from "../../pipeline/deps.ts";
import { authPlugin } from "../auth.ts";
import { jsonResponse } from "../context.ts";
import { modelEntry, PROFILE_ENTRIES } from "../serializers/models.ts";

/** The two possible answers of each path, by key mode. */
interface Answers {
  list: string;
  byId: ReadonlyMap<string, string>;
}

/** A malformed escape cannot name a model: it is kept as sent, and answers 404 like any unknown id. */
function decodeId(raw: string): string {
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export const modelsRoute = (deps: Deps) => {
  // Prepared once; the catalog does not change while gw runs.
  const build = (test: boolean): Answers => {
    const data = [...PROFILE_ENTRIES, ...deps.catalog.models.map((m) => modelEntry(m, test || deps.providers.get(m.provider) !== undefined))];
    return { list: JSON.stringify({ object: "list", data, has_more: false }), byId: new Map(data.map((e) => [e.id, JSON.stringify(e)])) };
  };
  const forTest = build(true);
  const forLive = build(false);
  return new Elysia().use(authPlugin(deps))
    .get("/models", ({ auth, requestId }) => jsonResponse((auth.test ? forTest : forLive).list, requestId), { scope: "models" })
    // Model ids hold a slash (openai/gpt-4o-mini), sent raw or as %2F (the openai SDK): a wildcard
    // takes both; Elysia hands it over still encoded.
    .get("/models/*", ({ auth, requestId, params }) => {
      const id = decodeId(params["*"]);
      const byId = (auth.test ? forTest : forLive).byId;
      // An alias (text-embedding-ada-002) or a bare id that names one model (gpt-4o-mini) answers
      // its target's entry, as chat accepts both (docs/config.md "Aliases").
      const name = deps.catalog.routed(id);
      const entry = byId.get(name) ?? byId.get(deps.catalog.resolve(name)?.id ?? "");
      if (entry === undefined) throw new GwError("model_not_found", `The model '${id}' does not exist.`, { param: "model" });
      return jsonResponse(entry, requestId);
    }, { scope: "models" });
};
