// Fail closed (docs/availability.md "Storage"): while the request log or the ledger cannot be
// written, chat, responses and embeddings answer 503 before any stage runs (no upstream is paid
// for an answer gw could not record). The refusal itself is not logged as a row: it could not be
// written either, and rows of refused requests would only grow the queue; it is counted instead.
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
