// Sign-in, the current session and sign-out (docs/dashboard.md "Sign-in and roles"). Failed
// sign-ins are throttled per source address and audited (never the token typed).
import { Elysia } from "elysia";
import type { AuditActor } from "../audit/audit-log.ts";
import type { DashboardSessions } from "../auth/dashboard-sessions.ts";
import { SESSION_TTL_MS } from "../auth/dashboard-sessions.ts";
import { RedisSignInThrottle, SignInThrottle } from "../auth/sign-in-throttle.ts";
import { invalidRequest } from "../errors/gw-error.ts";
import { inRanges, parseIp } from "../lib/ip.ts";
import type { Deps } from "../pipeline/deps.ts";
import { parseJsonObject, readBodyText } from "../schema/validate.ts";
import type { StoredSession } from "../store/repos/dashboard-sessions.ts";
import { actorOf, addressCheck, authorize, checkCsrf, dashboardSessions, SESSION_COOKIE, sessionCookieOf, sourceIpOf, viewerOf } from "./session-plugin.ts";

/** Failed sign-ins one address may make per minute before every attempt gets 429. */
export const SIGN_IN_FAILURES_PER_MINUTE = 10;
const SIGN_IN_BODY_BYTES = 16 * 1024;

interface PeerServer {
  requestIP(request: Request): { address: string } | null;
}

export function sessionView(s: StoredSession) {
  const v = viewerOf(s);
  return {
    object: "dashboard.session", role: v.role, project_id: v.projectId, key_id: v.keyId, scopes: [...v.scopes], email: v.email,
    csrf_token: s.csrfToken, expires_at: new Date(s.expiresAt).toISOString(),
  };
}

/** Whether the browser reached gw over TLS: directly, or through a trusted proxy that says so. */
export function overTls(request: Request, server: unknown, deps: Pick<Deps, "config">): boolean {
  if (new URL(request.url).protocol === "https:") return true;
  const proto = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  if (proto !== "https") return false;
  const peer = (server as PeerServer | null | undefined)?.requestIP(request)?.address ?? null;
  const ip = peer === null ? null : parseIp(peer);
  return ip !== null && inRanges(ip, deps.config.trustedProxies);
}

export function sessionCookie(token: string, secure: boolean, maxAgeSeconds = SESSION_TTL_MS / 1000): string {
  return `${SESSION_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAgeSeconds}${secure ? "; Secure" : ""}`;
}

export const sessionRoutes = (deps: Deps, prefix: string, sessions: DashboardSessions = dashboardSessions(deps)) => {
  const local = new SignInThrottle(SIGN_IN_FAILURES_PER_MINUTE, 60_000, () => deps.clock.now());
  // Multi-instance: one window per address for every instance, in Redis.
  const throttle = deps.shared ? new RedisSignInThrottle(deps.shared.redis, local, 60_000, "dashboard") : local;
  return new Elysia({ name: "gw-dashboard-session-routes", prefix })
    .post("/session", async ({ request, server, set }) => {
      const sourceIp = sourceIpOf(request, server, deps);
      await throttle.check(sourceIp ?? "unknown", "Too many failed sign-ins from this address; retry later.");
      const token = (await readBodyText(request, SIGN_IN_BODY_BYTES).then(parseJsonObject)).token;
      if (typeof token !== "string" || token === "") throw invalidRequest("Send {\"token\": \"<admin token or API key>\"}.", "token");
      const outcome = await sessions.signIn(token, addressCheck(request, server, deps));
      if (!outcome.ok) {
        await throttle.fail(sourceIp ?? "unknown");
        const actor: AuditActor = { type: "api_key", id: outcome.keyId, email: null };
        await deps.audit.record({
          actor, action: "session.sign_in_failed", projectId: outcome.projectId, outcome: "failure", status: outcome.error.status, sourceIp,
          details: { reason: outcome.error.message },
        });
        throw outcome.error;
      }
      const s = outcome.session;
      const actor: AuditActor = s.role === "operator" ? { type: "admin_token", id: null, email: null } : { type: "api_key", id: s.keyId, email: null };
      await deps.audit.record({ actor, action: "session.sign_in", projectId: s.projectId, target: s.id, status: 200, sourceIp, details: { role: s.role } });
      set.headers["set-cookie"] = sessionCookie(outcome.token, overTls(request, server, deps));
      return sessionView(s);
    }, { parse: "none" })
    .get("/session", async ({ request, server }) => sessionView((await authorize(deps, sessions, request, server, {})).session))
    .delete("/session", async ({ request, server, set }) => {
      const cookie = sessionCookieOf(request);
      // Signing out without a live session only clears the cookie; with one, it needs the CSRF header.
      const session = await sessions.resolve(cookie);
      if (session) {
        checkCsrf(request, session);
        const viewer = viewerOf(session);
        await sessions.signOut(cookie);
        await deps.audit.record({ actor: actorOf(viewer), action: "session.sign_out", projectId: viewer.projectId, target: session.id, status: 200, sourceIp: sourceIpOf(request, server, deps) });
      }
      set.headers["set-cookie"] = sessionCookie("", overTls(request, server, deps), 0);
      return { signed_out: true };
    });
};
