// Admin authentication (docs/security.md "Admin"): the constant-time token check, a warn line for
// every failure (the source address, never the token), and a per-address limit on failures so
// the token cannot be guessed at request speed. Shared by the admin API and the Prometheus route.
import { timingSafeEqual } from "node:crypto";
import { clientAddress, formatIp } from "../../lib/ip.ts";
import type { Deps } from "../../pipeline/deps.ts";
import { GwError } from "../../errors/gw-error.ts";

/** Failed attempts one address may make per window; past it every admin call from that address,
 * the right token included (else 200 against 429 would still answer guesses), gets 429. */
export const ADMIN_FAILURES_PER_WINDOW = 30;
const WINDOW_MS = 60_000;
/** Addresses tracked at once; the oldest window is dropped first, so the map never grows unbounded. */
const MAX_TRACKED = 10_000;

interface Window {
  start: number;
  failures: number;
}

interface PeerServer {
  requestIP(request: Request): { address: string } | null;
}

export class AdminGate {
  private readonly windows = new Map<string, Window>();
  constructor(private readonly deps: Deps, private readonly token: string, private readonly now: () => number = Date.now) {}

  /** Throws 429 for a locked-out address, 401 (and counts it) for a wrong or missing token. */
  check(request: Request, server: unknown): void {
    const source = this.sourceOf(request, server);
    const now = this.now();
    const win = this.windows.get(source);
    const live = win && now - win.start < WINDOW_MS ? win : undefined;
    if (live && live.failures >= ADMIN_FAILURES_PER_WINDOW) {
      throw new GwError("rate_limited", "Too many failed admin authentications from this address; retry later.", { retryAfter: Math.ceil((live.start + WINDOW_MS - now) / 1000) });
    }
    if (matches(this.token, request.headers.get("authorization"))) return;
    const failures = this.count(source, live, now);
    const path = new URL(request.url).pathname;
    this.deps.logger.warn({ source_ip: source, method: request.method, path, failures_in_window: failures }, "admin authentication failed");
    throw new GwError("invalid_api_key", "The admin API needs 'Authorization: Bearer <GW_ADMIN_TOKEN>'.");
  }

  private count(source: string, live: Window | undefined, now: number): number {
    if (live) return ++live.failures;
    this.windows.delete(source); // re-inserted last: the Map's order is then oldest window first
    if (this.windows.size >= MAX_TRACKED) this.windows.delete(this.windows.keys().next().value as string);
    this.windows.set(source, { start: now, failures: 1 });
    return 1;
  }

  private sourceOf(request: Request, server: unknown): string {
    const peer = (server as PeerServer | null | undefined)?.requestIP(request)?.address ?? null;
    const ip = clientAddress(peer, request.headers.get("x-forwarded-for"), this.deps.config.trustedProxies);
    return ip === null ? "unknown" : formatIp(ip);
  }
}

function matches(token: string, header: string | null): boolean {
  const given = header?.startsWith("Bearer ") ? header.slice(7).trim() : "";
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
