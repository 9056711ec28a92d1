// Stage guard: the project's and the key's IP allowlists (gateway-api.md 5.7; CIDR, IPv4 and IPv6;
// X-Forwarded-For believed only from GW_TRUSTED_PROXIES). Provider and region restrictions act in
// routing; PII and secrets handling joins this stage with the policy guard (issue 9).
import { clientAddress, inRanges, rangesOf } from "../../auth/ip-allowlist.ts";
import { GwError } from "../../errors/gw-error.ts";
import type { Deps } from "../../deps.ts";
import type { RequestState } from "../state.ts";

const listOf = (v: unknown): string[] | null => (Array.isArray(v) && v.length > 0 ? (v as string[]) : null);

export function guard(deps: Deps, state: RequestState): void {
  const keyList = listOf(state.auth.key.ipAllowlist);
  const projectList = listOf((state.auth.project.policy as { ip_allowlist?: unknown }).ip_allowlist);
  if (!keyList && !projectList) return;
  const ip = clientAddress(state.peerAddress ?? null, state.http.headers.get("x-forwarded-for"), deps.config.trustedProxies);
  const allowed = (list: string[] | null) => list === null || (ip !== null && inRanges(ip, rangesOf(list)));
  if (!allowed(projectList)) throw new GwError("permission_denied", "The project does not accept requests from this IP address (policy ip_allowlist).");
  if (!allowed(keyList)) throw new GwError("permission_denied", "This API key does not accept requests from this IP address (its ip_allowlist).");
}
