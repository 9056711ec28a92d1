// Stage guard: answers the IP allowlists' refusal made at auth, logged with a guard span, then
// applies the PII and secrets policy to every text bound for a provider, before analysis and the
// cache see them (docs/guard.md "Where it runs"; docs/security.md "Boundaries").
import { blockedError, guardsNothing, guardTexts } from "../../guard/content-guard.ts";
import { mapChatTexts, mapInputs } from "../../guard/request-texts.ts";
import type { Deps } from "../deps.ts";
import type { EmbedState } from "../embed/embed-state.ts";
import type { RequestState } from "../state.ts";

/** The auth plugin's verdict (src/http/auth.ts), made once for every endpoint; the pipeline's
 * refusal is a logged request with a guard span. */
function checkAddress(state: RequestState): void {
  if (state.addressRefusal) throw state.addressRefusal;
}

function checkContent(deps: Deps, state: RequestState): void {
  const policy = state.auth.rules.guard;
  if (guardsNothing(policy)) return;
  const report = guardTexts(policy, (map) => {
    if (state.endpoint === "embeddings") {
      const job = (state as EmbedState).embed;
      job.input = mapInputs(job.input, map);
    } else if (state.request) mapChatTexts(state.request, map);
  }, state.endpoint !== "embeddings"); // inputs are embedded one by one: no value spans two
  if (!report) return;
  state.guard = report;
  deps.eventSources.security.guarded(state.auth.project.id, state.requestId, report);
  if (report.action === "blocked") throw blockedError(report);
}

export function guard(deps: Deps, state: RequestState): void {
  checkAddress(state);
  checkContent(deps, state);
}
