// Where gw may send webhooks: https only (plain http just to loopback, when allowed), never to private,
// link-local, CGNAT, unique-local, metadata or unspecified addresses (docs/webhooks.md "Endpoint URLs").
// Names are resolved and every address checked, at creation and again at delivery.
import { lookup } from "node:dns/promises";
import { type Cidr, formatIp, inRanges, parseCidr, parseIp } from "../../lib/ip.ts";

export type Resolve = (hostname: string) => Promise<string[]>;

export interface UrlCheckOptions {
  /** GW_WEBHOOK_ALLOW_LOOPBACK=1: loopback receivers (tests, local tools), over plain http too. */
  allowLoopback: boolean;
  /** A name's addresses; the default asks the system resolver for all of them. */
  resolve?: Resolve;
}

export type UrlCheck = { ok: true; url: URL; addresses: string[] } | { ok: false; reason: string };

export const systemResolve: Resolve = async (hostname) => (await lookup(hostname, { all: true })).map((a) => a.address);

const ranges = (list: Record<string, string>): Array<[string, Cidr]> =>
  Object.entries(list).map(([cidr, why]) => {
    const parsed = parseCidr(cidr);
    if (parsed === null) throw new Error(`bad built-in range ${cidr}`);
    return [why, parsed];
  });

// Checked in order: the metadata addresses first so the reason names them, not their enclosing range.
const REFUSED = ranges({
  "169.254.169.254": "a cloud metadata address",
  "fd00:ec2::254": "a cloud metadata address",
  "0.0.0.0/8": "an unspecified address",
  "::/128": "an unspecified address",
  "10.0.0.0/8": "a private address",
  "172.16.0.0/12": "a private address",
  "192.168.0.0/16": "a private address",
  "100.64.0.0/10": "a shared (CGNAT) address",
  "169.254.0.0/16": "a link-local address",
  "fe80::/10": "a link-local address",
  "fc00::/7": "a unique-local address",
  "192.0.0.0/24": "a reserved address",
  "198.18.0.0/15": "a reserved address",
  "224.0.0.0/4": "a multicast address",
  "ff00::/8": "a multicast address",
  "240.0.0.0/4": "a reserved address",
  "::/96": "a reserved address", // IPv4-compatible (deprecated); ::1 is matched as loopback before this
});
const LOOPBACK = ranges({ "127.0.0.0/8": "loopback", "::1/128": "loopback" }).map(([, c]) => c);
// Prefixes that embed an IPv4 address in their last 32 bits (NAT64): judged by the embedded address.
const EMBEDS_V4 = ranges({ "64:ff9b::/96": "NAT64" }).map(([, c]) => c);

/** Why an address is refused, or null when gw may send to it. */
export function refusedAddress(ip: bigint, allowLoopback: boolean): string | null {
  if (inRanges(ip, EMBEDS_V4)) return refusedAddress((0xffffn << 32n) | (ip & 0xffffffffn), allowLoopback);
  if (inRanges(ip, LOOPBACK)) return allowLoopback ? null : "a loopback address";
  for (const [why, cidr] of REFUSED) if (inRanges(ip, [cidr])) return why;
  return null;
}

const isLoopback = (ip: bigint): boolean => inRanges(ip, LOOPBACK);

/** Checks an endpoint URL: its scheme, and every address its host is or resolves to. */
export async function checkWebhookUrl(text: string, options: UrlCheckOptions): Promise<UrlCheck> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: "not a valid URL" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { ok: false, reason: "the URL must use https" };
  if (url.username !== "" || url.password !== "") return { ok: false, reason: "the URL must not carry credentials" };
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (host === "") return { ok: false, reason: "the URL has no host" };

  const literal = parseIp(host);
  let addresses: string[];
  if (literal !== null) addresses = [host];
  else {
    try {
      addresses = await (options.resolve ?? systemResolve)(host);
    } catch {
      return { ok: false, reason: `${host} does not resolve` };
    }
    if (addresses.length === 0) return { ok: false, reason: `${host} does not resolve` };
  }

  const parsed: bigint[] = [];
  for (const address of addresses) {
    const ip = parseIp(address);
    if (ip === null) return { ok: false, reason: `${host} resolves to something that is not an address` };
    const why = refusedAddress(ip, options.allowLoopback);
    if (why !== null) {
      const shown = literal !== null ? host : `${host} resolves to ${formatIp(ip)}, which is`;
      return { ok: false, reason: literal !== null ? `${shown} is ${why}` : `${shown} ${why}` };
    }
    parsed.push(ip);
  }
  // Plain http only when every address is loopback (and loopback is allowed, or we would have refused above).
  if (url.protocol === "http:" && !(options.allowLoopback && parsed.every(isLoopback))) {
    return { ok: false, reason: "the URL must use https" };
  }
  return { ok: true, url, addresses };
}
