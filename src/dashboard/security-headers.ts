// The headers every dashboard page, asset and /dashboard/api answer carries, errors included
// (docs/dashboard.md "Security headers"): a strict CSP with no inline script or style, no framing.
import { Elysia } from "elysia";

export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "font-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
});

/** Paths whose answers are the dashboard's, page paths aside (those never fail). */
const PREFIXES = ["/dashboard/api", "/assets/"];
const NONE: Readonly<Record<string, string>> = Object.freeze({});

/** The security headers for an error answer to `url`, or none outside the dashboard: errors pass here only. */
export function securityHeadersForUrl(url: string): Readonly<Record<string, string>> {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const path = start < 0 ? "/" : url.slice(start);
  return PREFIXES.some((p) => path.startsWith(p)) ? SECURITY_HEADERS : NONE;
}

/** Adds the headers to every answer of the routes registered after it in the instance that uses it. */
export const dashboardSecurityHeaders = new Elysia({ name: "gw-dashboard-security-headers" }).onAfterHandle(
  { as: "scoped" },
  ({ set }) => {
    Object.assign(set.headers, SECURITY_HEADERS);
  },
);
