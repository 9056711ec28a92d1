// Fail closed: while the request log or the ledger cannot be written, pipeline requests answer 503
// before any stage runs; the refusal is counted, not logged as a row it could not write
// (docs/availability.md "Storage").
import type { Deps } from "./deps.ts";
import { storageUnavailable, type GwError } from "../errors/gw-error.ts";
import type { RequestState } from "./state.ts";

export function storageRefusal(deps: Deps, state: RequestState): { kind: "error"; error: GwError; headers: Record<string, string> } | null {
  if (deps.storage.healthy) return null;
  deps.storage.refused++;
  const error = storageUnavailable();
  state.error = error;
  state.status = error.status;
  return { kind: "error", error, headers: {} };
}
