// IP addresses and CIDR ranges of both families, compared as 128-bit numbers (IPv4 as IPv4-mapped
// IPv6), so one rule serves both. Used by the allowlists (auth/) and GW_TRUSTED_PROXIES (config/).

export interface Cidr {
  base: bigint;
  mask: bigint;
}

const FULL = (1n << 128n) - 1n;

function parseV4(text: string): bigint | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let n = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    n = (n << 8n) | BigInt(Number(p));
  }
  return (0xffffn << 32n) | n; // IPv4-mapped
}

function parseV6(text: string): bigint | null {
  let head = text;
  let tailV4: bigint | null = null;
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".")) {
    tailV4 = parseV4(text.slice(lastColon + 1));
    if (tailV4 === null) return null;
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split("::");
  if (halves.length > 2) return null;
  const groups = (s: string) => (s === "" ? [] : s.split(":"));
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - left.length - right.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return null;
  let n = 0n;
  for (const g of [...left, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...right]) {
    if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
    n = (n << 16n) | BigInt(parseInt(g, 16));
  }
  return tailV4 === null ? n : (n & ~0xffffffffn) | (tailV4 & 0xffffffffn);
}

/** An address as a 128-bit number, or null when it is not one. Zone ids (`%eth0`) are dropped. */
export function parseIp(text: string): bigint | null {
  const t = text.trim().replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  return t.includes(":") ? parseV6(t) : parseV4(t);
}

/** `10.0.0.0/8`, `2001:db8::/32`, or a single address. Null when malformed. */
export function parseCidr(text: string): Cidr | null {
  const [addr, bitsText, extra] = text.trim().split("/");
  if (addr === undefined || extra !== undefined) return null;
  const base = parseIp(addr);
  if (base === null) return null;
  const v4 = !addr.includes(":");
  const max = v4 ? 32 : 128;
  const bits = bitsText === undefined ? max : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : NaN;
  if (!(bits >= 0 && bits <= max)) return null;
  const prefix = v4 ? 96 + bits : bits;
  const mask = prefix === 0 ? 0n : (FULL << BigInt(128 - prefix)) & FULL;
  return { base: base & mask, mask };
}

export const inRanges = (ip: bigint, ranges: readonly Cidr[]): boolean => ranges.some((r) => (ip & r.mask) === r.base);

export const rangesOf = (list: readonly string[]): Cidr[] => list.map(parseCidr).filter((c): c is Cidr => c !== null);

/** The caller's address: the socket peer, or, when the peer is a trusted proxy, the right-most
 * X-Forwarded-For address that is not itself a trusted proxy. */
export function clientAddress(peer: string | null, forwardedFor: string | null, trusted: readonly Cidr[]): bigint | null {
  let ip = peer === null ? null : parseIp(peer);
  if (ip === null || !forwardedFor || !inRanges(ip, trusted)) return ip;
  const hops = forwardedFor.split(",").map((h) => parseIp(h));
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i];
    if (hop === null || hop === undefined) return ip; // a malformed hop: trust nothing before it
    ip = hop;
    if (!inRanges(hop, trusted)) return hop;
  }
  return ip;
}

/** An address for logs: dotted IPv4 for IPv4-mapped ones, else eight uncompressed IPv6 groups. */
export function formatIp(ip: bigint): string {
  if (ip >> 32n === 0xffffn) return [24n, 16n, 8n, 0n].map((s) => String((ip >> s) & 0xffn)).join(".");
  return Array.from({ length: 8 }, (_, i) => ((ip >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(":");
}
