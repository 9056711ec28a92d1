// The reference model behind `saved` when a routing profile was asked for (docs/decisions.md).
// Profiles themselves are a required quality and weights (routing/score.ts, docs/routing.md).
import { ROUTING_PROFILES, type RoutingProfile } from "../config/constants.ts";

export const BASELINE_MODEL_ID = "openai/gpt-4o";

/** `gw-auto`, `gw-fast`... as opposed to a model id. */
export const isProfile = (name: string): name is RoutingProfile => (ROUTING_PROFILES as readonly string[]).includes(name);
