// IP allowlists are checked when written (admin API and dashboard alike), so the guard never meets
// a range it cannot read (docs/security.md "Boundaries").
import { invalidRequest } from "../errors/gw-error.ts";
import { parseCidr } from "../lib/ip.ts";

export function assertCidrs(list: unknown, param: string): void {
  if (!Array.isArray(list)) return;
  list.forEach((entry, i) => {
    if (typeof entry !== "string" || !parseCidr(entry)) throw invalidRequest(`'${entry}' is not an IP address or CIDR range (IPv4 or IPv6).`, `${param}[${i}]`);
  });
}
