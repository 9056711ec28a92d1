// The semantic half of cache-lookup (gateway-api.md 4.13). Wired once the semantic index lands.
import type { Deps } from "../../deps.ts";
import type { RequestState } from "../state.ts";

export async function semanticLookup(_deps: Deps, _state: RequestState): Promise<void> {}
