// Stage guard: the project's and the key's IP allowlists (gateway-api.md 5.7; CIDR, IPv4 and IPv6;
// X-Forwarded-For believed only from GW_TRUSTED_PROXIES), then the PII and secrets policy
// (contracts.md 3 `pii`, `secrets`; docs/guard.md) over every text bound for a provider. It runs
// before analysis and the cache, so the analyzer, the cache key and anything stored see the
// redacted text only. Provider and region restrictions act in routing.
import { addressRefusal } from "../../auth/ip-allowlist.ts";
import { blockedError, guardPolicyOf, guardsNothing, guardTexts } from "../../guard/content-guard.ts";
import { mapChatTexts, mapInputs } from "../../guard/request-texts.ts";
import type { Deps } from "../../deps.ts";
import type { EmbedState } from "../embed/embed-state.ts";
import type { RequestState } from "../state.ts";

/** The same check the auth plugin makes for every other endpoint (src/http/auth.ts); here the
 * refusal is a logged request with a guard span. */
function checkAddress(deps: Deps, state: RequestState): void {
  const refusal = addressRefusal(state.auth, state.peerAddress ?? null, state.http.headers.get("x-forwarded-for"), deps.config.trustedProxies);
  if (refusal) throw refusal;
}

function checkContent(state: RequestState): void {
  const policy = guardPolicyOf(state.auth.project.policy as { pii?: unknown; secrets?: unknown });
  if (guardsNothing(policy)) return;
  const report = guardTexts(policy, (map) => {
    if (state.endpoint === "embeddings") {
      const job = (state as EmbedState).embed;
      job.input = mapInputs(job.input, map);
    } else if (state.request) mapChatTexts(state.request, map);
  }, state.endpoint !== "embeddings"); // inputs are embedded one by one: no value spans two
  if (!report) return;
  state.guard = report;
  if (report.action === "blocked") throw blockedError(report);
}

export function guard(deps: Deps, state: RequestState): void {
  checkAddress(deps, state);
  checkContent(state);
}
