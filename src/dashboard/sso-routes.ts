// SSO sign-in for projects on plan business (docs/dashboard.md "Single sign-on (OIDC)"):
// POST /sso/start {email} -> {redirect_url}; the issuer sends the browser back to GET /sso/callback,
// which opens a project session and sends the browser on to the dashboard, or to /?sso_error=<reason>.
import { Elysia } from "elysia";
import type { DashboardSessions } from "../auth/dashboard-sessions.ts";
import { OidcClient } from "../auth/oidc-client.ts";
import { RedisSignInThrottle, SignInThrottle } from "../auth/sign-in-throttle.ts";
import { SsoFlow } from "../auth/oidc-flow.ts";
import { redisPendingSignIns } from "../auth/oidc-pending.ts";
import type { Deps } from "../pipeline/deps.ts";
import { parseJsonObject, readBodyText } from "../schema/validate.ts";
import { postgresSsoStore } from "../store/postgres/sso.ts";
import { dashboardSessions, sourceIpOf } from "./session-plugin.ts";
import { overTls, sessionCookie } from "./session-routes.ts";

const START_BODY_BYTES = 4 * 1024;
/** Per source address and minute: SSO starts (each holds a pending sign-in), and failed callbacks
 * (each writes an audit entry); past them, 429 and /?sso_error=rate_limited, unaudited. */
export const SSO_STARTS_PER_MINUTE = 30;
export const SSO_FAILURES_PER_MINUTE = 10;

/** A 302 here would keep the navigation the issuer started, and the browser would not send the
 * SameSite=Strict cookie to the dashboard it lands on; a refresh from this page is gw's own. */
const signedInPage = (to: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=${to}"><link rel="icon" href="data:,"><title>Signed in</title></head>` +
  `<body><p><a href="${to}">Continue to the dashboard</a></p></body></html>`;

/** Where the issuer returns the browser: this gw, as the browser reached it. */
function callbackUrl(request: Request, server: unknown, deps: Deps, prefix: string): string {
  const host = new URL(request.url).host;
  return `${overTls(request, server, deps) ? "https" : "http"}://${host}${prefix}/sso/callback`;
}

/** Whether `source` is past its failed callbacks: this instance's window, or every instance's in Redis. */
async function locked(throttle: SignInThrottle | RedisSignInThrottle, source: string): Promise<boolean> {
  if (throttle instanceof SignInThrottle) return throttle.lockedFor(source) !== null;
  try {
    await throttle.check(source, "locked");
    return false;
  } catch {
    return true;
  }
}

export const ssoRoutes = (deps: Deps, prefix: string, sessions: DashboardSessions = dashboardSessions(deps)) => {
  // Multi-instance (docs/scale-out.md): clients read from PostgreSQL (saved on any instance), the
  // pending sign-in in Redis (the callback may reach another instance), one throttle window in Redis.
  const { shared } = deps;
  const flow = new SsoFlow({
    projects: deps.repos.projects, projectSso: shared ? postgresSsoStore(shared.pg) : deps.repos.projectSso,
    pending: shared ? redisPendingSignIns(shared.redis) : undefined, secrets: deps.secrets, clock: deps.clock, oidc: new OidcClient(deps.clock),
  });
  const throttle = (limit: number, name: string) => {
    const local = new SignInThrottle(limit, 60_000, () => deps.clock.now());
    return shared ? new RedisSignInThrottle(shared.redis, local, 60_000, name) : local;
  };
  const starts = throttle(SSO_STARTS_PER_MINUTE, "sso-start");
  const failures = throttle(SSO_FAILURES_PER_MINUTE, "sso-callback");
  return new Elysia({ name: "gw-dashboard-sso", prefix })
    .post("/sso/start", async ({ request, server }) => {
      const source = sourceIpOf(request, server, deps) ?? "unknown";
      await starts.check(source, "Too many SSO sign-ins started from this address; retry later.");
      await starts.fail(source);
      const { email } = parseJsonObject(await readBodyText(request, START_BODY_BYTES));
      const { redirectUrl } = await flow.start(email, callbackUrl(request, server, deps, prefix));
      return { redirect_url: redirectUrl };
    }, { parse: "none" })
    .get("/sso/callback", async ({ request, server, set }) => {
      const sourceIp = sourceIpOf(request, server, deps);
      set.status = 302;
      if (await locked(failures, sourceIp ?? "unknown")) {
        set.headers.location = "/?sso_error=rate_limited";
        return "";
      }
      const q = new URL(request.url).searchParams;
      const outcome = await flow.finish({ code: q.get("code"), state: q.get("state"), error: q.get("error") });
      if (!outcome.ok) {
        await failures.fail(sourceIp ?? "unknown");
        await deps.audit.record({
          actor: { type: "sso", id: null, email: outcome.email }, action: "sso.sign_in", projectId: outcome.projectId, outcome: "failure", status: 302, sourceIp,
          details: { reason: outcome.reason, detail: outcome.detail },
        });
        set.headers.location = `/?sso_error=${encodeURIComponent(outcome.reason)}`;
        return "";
      }
      const { session, token, written } = sessions.signInSso(outcome.projectId, outcome.email);
      // Multi-instance: the session is PostgreSQL's; the cookie is sent only once it is stored there.
      if (written) await written;
      await deps.audit.record({ actor: { type: "sso", id: session.id, email: outcome.email }, action: "sso.sign_in", projectId: outcome.projectId, target: session.id, status: 302, sourceIp });
      set.headers["set-cookie"] = sessionCookie(token, overTls(request, server, deps));
      set.headers["cache-control"] = "no-store";
      set.headers["content-type"] = "text/html; charset=utf-8";
      set.status = 200;
      return signedInPage(`/?project=${encodeURIComponent(outcome.projectId)}`);
    });
};
