// Model list entries (docs/api.md "Models"): routing profiles, then the catalog's models.
import { ROUTING_PROFILES } from "../../config/constants.ts";
import type { CatalogModel } from "../../routing/catalog-types.ts";

export const profileEntry = (id: string) => ({ id, object: "model", owned_by: "gw", created: 0, gw: { virtual: true } });

export const modelEntry = (m: CatalogModel, routable: boolean) => ({
  id: m.id,
  object: "model",
  owned_by: m.owned_by,
  created: m.created,
  gw: {
    name: m.name,
    input_price: m.input_price,
    output_price: m.output_price,
    context_window: m.context_window,
    tools: m.capabilities.tools,
    vision: m.capabilities.vision,
    json: m.capabilities.json,
    reasoning: m.capabilities.reasoning,
    embeddings: m.capabilities.embeddings,
    quality: m.quality.general,
    routable,
  },
});

export const PROFILE_ENTRIES = ROUTING_PROFILES.map(profileEntry);
