// IP allowlists (docs/security.md "Boundaries"): the project's and the key's ranges, parsed once
// with the project's rules. `addressRefusal` is the one check every project-key call passes.
import { GwError } from "../errors/gw-error.ts";
import { clientAddress, inRanges, rangesOf, type Cidr } from "../lib/ip.ts";

/** An authenticated key's allowlists, parsed once with its project's rules (project-rules.ts):
 * the project's and the key's own, null when it has none. An entry that does not parse matches
 * nothing, so a list of only such entries admits no one. */
export interface Allowlists {
  readonly project: readonly Cidr[] | null;
  readonly key: readonly Cidr[] | null;
}

export const allowlistOf = (list: readonly string[] | null | undefined): readonly Cidr[] | null =>
  Array.isArray(list) && list.length > 0 ? Object.freeze(rangesOf(list)) : null;

/** The refusal for a caller outside the project's or the key's allowlist, or null when admitted.
 * A caller whose address is unknown (no peer, as under app.handle) is refused when a list exists. */
export function addressRefusal(lists: Allowlists, peer: () => string | null, forwardedFor: string | null, trusted: readonly Cidr[]): GwError | null {
  if (!lists.project && !lists.key) return null;
  // The peer is asked for only here: most projects have no list, and the lookup is not free.
  const ip = clientAddress(peer(), forwardedFor, trusted);
  const allowed = (ranges: readonly Cidr[] | null) => ranges === null || (ip !== null && inRanges(ip, ranges));
  if (!allowed(lists.project)) return new GwError("permission_denied", "The project does not accept requests from this IP address (policy ip_allowlist).");
  if (!allowed(lists.key)) return new GwError("permission_denied", "This API key does not accept requests from this IP address (its ip_allowlist).");
  return null;
}
