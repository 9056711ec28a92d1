// Stage guard: the project's and the key's IP allowlists (gateway-api.md 5.7; CIDR, IPv4 and IPv6;
// X-Forwarded-For believed only from GW_TRUSTED_PROXIES), then the PII and secrets policy
// (contracts.md 3 `pii`, `secrets`; docs/guard.md) over every text bound for a provider. It runs
// before analysis and the cache, so the analyzer, the cache key and anything stored see the
// redacted text only. Provider and region restrictions act in routing.
import { clientAddress, inRanges, rangesOf } from "../../auth/ip-allowlist.ts";
import { GwError } from "../../errors/gw-error.ts";
import { blockedError, guardPolicyOf, guardsNothing, guardTexts } from "../../guard/content-guard.ts";
import { mapChatTexts, mapInputs } from "../../guard/request-texts.ts";
import type { Deps } from "../../deps.ts";
import type { EmbedState } from "../embed/embed-state.ts";
import type { RequestState } from "../state.ts";

const listOf = (v: unknown): string[] | null => (Array.isArray(v) && v.length > 0 ? (v as string[]) : null);

function checkAddress(deps: Deps, state: RequestState): void {
  const keyList = listOf(state.auth.key.ipAllowlist);
  const projectList = listOf((state.auth.project.policy as { ip_allowlist?: unknown }).ip_allowlist);
  if (!keyList && !projectList) return;
  const ip = clientAddress(state.peerAddress ?? null, state.http.headers.get("x-forwarded-for"), deps.config.trustedProxies);
  const allowed = (list: string[] | null) => list === null || (ip !== null && inRanges(ip, rangesOf(list)));
  if (!allowed(projectList)) throw new GwError("permission_denied", "The project does not accept requests from this IP address (policy ip_allowlist).");
  if (!allowed(keyList)) throw new GwError("permission_denied", "This API key does not accept requests from this IP address (its ip_allowlist).");
}

function checkContent(state: RequestState): void {
  const policy = guardPolicyOf(state.auth.project.policy as { pii?: unknown; secrets?: unknown });
  if (guardsNothing(policy)) return;
  const report = guardTexts(policy, (map) => {
    if (state.endpoint === "embeddings") {
      const job = (state as EmbedState).embed;
      job.input = mapInputs(job.input, map);
    } else if (state.request) mapChatTexts(state.request, map);
  });
  if (!report) return;
  state.guard = report;
  if (report.action === "blocked") throw blockedError(report);
}

export function guard(deps: Deps, state: RequestState): void {
  checkAddress(deps, state);
  checkContent(state);
}
