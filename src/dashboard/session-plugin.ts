// The dashboard's session check (docs/dashboard.md "Sign-in and roles"): the `dash` macro reads the
// gw_session cookie, re-checks it, enforces CSRF on non-GET, the operator flag and the scope, and
// resolves the viewer and the project the call is about. Every /dashboard/api route but sign-in uses it.
import { Elysia } from "elysia";
import { type AddressCheck, constantTimeEqual, DashboardSessions } from "../auth/dashboard-sessions.ts";
import { addressRefusal } from "../auth/ip-allowlist.ts";
import { andThen, type MaybeAsync } from "../auth/maybe-async.ts";
import type { AuditActor } from "../audit/audit-log.ts";
import { GwError } from "../errors/gw-error.ts";
import { clientAddress, formatIp } from "../lib/ip.ts";
import type { Deps } from "../pipeline/deps.ts";
import { postgresDashboardSessions } from "../store/postgres/dashboard-sessions.ts";
import type { StoredSession } from "../store/repos/dashboard-sessions.ts";
import type { Viewer } from "./viewer.ts";

export const SESSION_COOKIE = "gw_session";
export const CSRF_HEADER = "x-gw-csrf";

export interface DashOptions {
  /** The scope a project session needs (the operator has every scope). */
  scope?: "requests" | "cache";
  /** Operator only: project sessions get 403. */
  operator?: true;
}

interface PeerServer {
  requestIP(request: Request): { address: string } | null;
}

const SAFE_METHODS = new Set(["GET", "HEAD"]);

/** The gw_session cookie's value, or null. */
export function sessionCookieOf(request: Request): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

export function viewerOf(s: StoredSession): Viewer {
  return { role: s.role, projectId: s.projectId, keyId: s.role === "operator" ? null : s.keyId, scopes: s.scopes, email: s.email, sessionId: s.id };
}

/** Who the audit log names for a dashboard action. */
export function actorOf(viewer: Viewer): AuditActor {
  if (viewer.role === "operator") return { type: "operator_session", id: viewer.sessionId, email: null };
  if (viewer.email !== null) return { type: "sso", id: viewer.sessionId, email: viewer.email };
  return { type: "project_session", id: viewer.keyId, email: null };
}

/** The caller's address as the audit log records it (the trusted-proxy rule of GW_TRUSTED_PROXIES). */
export function sourceIpOf(request: Request, server: unknown, deps: Pick<Deps, "config">): string | null {
  const peer = (server as PeerServer | null | undefined)?.requestIP(request)?.address ?? null;
  const ip = clientAddress(peer, request.headers.get("x-forwarded-for"), deps.config.trustedProxies);
  return ip === null ? null : formatIp(ip);
}

/** Multi-instance: sessions are PostgreSQL's, and a key the mirror lacks is looked up there
 * (docs/scale-out.md "Dashboard and audit log"). */
export function dashboardSessions(deps: Deps): DashboardSessions {
  const shared = deps.shared;
  if (!shared) return new DashboardSessions(deps.repos, deps.clock, deps.config.adminToken);
  const repos = { ...deps.repos, dashboardSessions: postgresDashboardSessions(shared.pg) };
  return new DashboardSessions(repos, deps.clock, deps.config.adminToken, { lookUpKey: (hash) => shared.mirror.lookUpKey(hash) });
}

/** The project a call is about: a project session's own; the operator's `?project=` or the first project. */
function projectOf(deps: Deps, viewer: Viewer, asked: string | null): string {
  if (viewer.role === "project") {
    if (asked !== null && asked !== viewer.projectId) throw new GwError("not_found", `No project '${asked}'.`, { param: "project" });
    return viewer.projectId ?? "";
  }
  if (asked !== null) {
    if (!deps.repos.projects.get(asked)) throw new GwError("not_found", `No project '${asked}'.`, { param: "project" });
    return asked;
  }
  // "" only while no project exists: project-scoped reads then find nothing.
  return deps.repos.projects.firstId() ?? "";
}

/** The IP-allowlist check of a project key's calls, for this request (docs/security.md "Boundaries"). */
export function addressCheck(request: Request, server: unknown, deps: Pick<Deps, "config">): AddressCheck {
  const peer = () => (server as PeerServer | null | undefined)?.requestIP(request)?.address ?? null;
  return (lists) => addressRefusal(lists, peer, request.headers.get("x-forwarded-for"), deps.config.trustedProxies);
}

/** Non-GET calls carry the session's CSRF token in X-Gw-Csrf (SameSite=Strict is the first guard). */
export function checkCsrf(request: Request, session: StoredSession): void {
  if (!SAFE_METHODS.has(request.method) && !constantTimeEqual(request.headers.get(CSRF_HEADER) ?? "", session.csrfToken)) {
    throw new GwError("permission_denied", "CSRF token missing or wrong: send the session's csrf_token as X-Gw-Csrf.");
  }
}

/** Resolves the session of a request or throws the error the contract names. */
export function authorize(deps: Deps, sessions: DashboardSessions, request: Request, server: unknown, options: DashOptions): MaybeAsync<Authorized> {
  return andThen(sessions.resolve(sessionCookieOf(request)), (session) => authorized(deps, sessions, session, request, server, options));
}

interface Authorized { viewer: Viewer; projectId: string; session: StoredSession }

function authorized(deps: Deps, sessions: DashboardSessions, session: StoredSession | null, request: Request, server: unknown, options: DashOptions): Authorized {
  if (!session) throw new GwError("invalid_api_key", "Not signed in to the dashboard, or the session has ended; sign in again.");
  const refusal = sessions.addressRefusal(session, addressCheck(request, server, deps));
  if (refusal) throw refusal;
  checkCsrf(request, session);
  const viewer = viewerOf(session);
  if (options.operator && viewer.role !== "operator") throw new GwError("permission_denied", "Only the operator (the admin token) can do this.");
  if (options.scope && !viewer.scopes.includes(options.scope)) {
    throw new GwError("permission_denied", `This session's key lacks the '${options.scope}' scope this needs.`);
  }
  const projectId = projectOf(deps, viewer, new URL(request.url).searchParams.get("project"));
  return { viewer, projectId, session };
}

/** One seed per Deps: several apps in one process (the tests' in-process instances) each keep
 * their own plugin; Elysia keeps one per name and seed. */
const seeds = new WeakMap<Deps, number>();
let seeded = 0;

/** `{ dash: {} }`, `{ dash: { scope: "cache" } }`, `{ dash: { operator: true } }` on a route. The
 * macro reads this app's deps and sessions from the context, never from its closure: Elysia may
 * reuse one app's macro for another app's routes in the same process. */
export const dashboardSession = (deps: Deps) => {
  if (!seeds.has(deps)) seeds.set(deps, ++seeded);
  return new Elysia({ name: "gw-dashboard-session", seed: seeds.get(deps) })
    .decorate("dashboardAuth", { deps, sessions: dashboardSessions(deps) })
    .macro({
      dash: (options: DashOptions | true) => ({
        resolve({ request, server, dashboardAuth }) {
          return andThen(authorize(dashboardAuth.deps, dashboardAuth.sessions, request, server, options === true ? {} : options),
            ({ viewer, projectId }) => ({ viewer, projectId }));
        },
      }),
    });
};
