// Admin authentication (docs/security.md "Admin"): the constant-time token check, a warn line for
// every failure (the source address, never the token), and a per-address limit on failures so
// the token cannot be guessed at request speed. Shared by the admin API and the Prometheus route.
import { timingSafeEqual } from "node:crypto";
import { clientAddress, formatIp } from "../../lib/ip.ts";
import type { Deps } from "../../pipeline/deps.ts";
import { GwError } from "../../errors/gw-error.ts";
import { SignInThrottle } from "../../auth/sign-in-throttle.ts";

/** Failed attempts one address may make per window; past it every admin call from that address,
 * the right token included (else 200 against 429 would still answer guesses), gets 429. */
export const ADMIN_FAILURES_PER_WINDOW = 30;
const WINDOW_MS = 60_000;

interface PeerServer {
  requestIP(request: Request): { address: string } | null;
}

export class AdminGate {
  private readonly throttle: SignInThrottle;
  constructor(private readonly deps: Deps, private readonly token: string, now: () => number = Date.now) {
    this.throttle = new SignInThrottle(ADMIN_FAILURES_PER_WINDOW, WINDOW_MS, now);
  }

  /** Throws 429 for a locked-out address, 401 (and counts it) for a wrong or missing token. */
  check(request: Request, server: unknown): void {
    const source = this.sourceOf(request, server);
    this.throttle.check(source, "Too many failed admin authentications from this address; retry later.");
    if (matches(this.token, request.headers.get("authorization"))) return;
    const failures = this.throttle.fail(source);
    const path = new URL(request.url).pathname;
    this.deps.logger.warn({ source_ip: source, method: request.method, path, failures_in_window: failures }, "admin authentication failed");
    throw new GwError("invalid_api_key", "The admin API needs 'Authorization: Bearer <GW_ADMIN_TOKEN>'.");
  }

  /** The caller's address (docs/security.md "Admin"): what the audit log records as source_ip. */
  sourceOf(request: Request, server: unknown): string {
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
