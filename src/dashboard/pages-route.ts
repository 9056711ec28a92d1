// The dashboard's pages and assets (docs/dashboard.md "Building the dashboard"): every page path answers
// index.html (the app routes in the browser); /assets/* answers immutable, gzipped when accepted.
import { Elysia } from "elysia";
import { GwError } from "../errors/gw-error.ts";
import { findAsset, indexHtml } from "./assets.ts";
import { SESSION_COOKIE } from "./session-plugin.ts";

/** The page paths of the app (docs/dashboard.md "Pages"); any other path keeps its 404. */
export const PAGE_PATHS = ["/", "/requests", "/requests/:request_id", "/cache", "/recommendations", "/projects", "/monitoring", "/status-admin", "/audit"];

const IMMUTABLE = "public, max-age=31536000, immutable";

/** True when If-None-Match names `etag` (either representation's) or is `*`. */
function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((t) => {
    const tag = t.trim().replace(/^W\//, "").replace(/"/g, "").replace(/-gz$/, "");
    return tag === "*" || tag === etag;
  });
}

/** The marker the app reads before asking for its session: without a cookie the answer can only be a
 * 401, which browsers print in the console, so the app shows the sign-in page without asking. */
export const SESSION_HINT = '<meta name="gw-session" content="cookie">';
const indexWithHint = indexHtml.replace("</head>", `${SESSION_HINT}</head>`);

const hasSessionCookie = (cookie: string | undefined) =>
  cookie !== undefined && cookie.split(";").some((c) => c.trim().startsWith(`${SESSION_COOKIE}=`) && c.trim().length > SESSION_COOKIE.length + 1);

function page({ headers, set }: { headers: Record<string, string | undefined>; set: { headers: Record<string, string | number> } }) {
  set.headers["content-type"] = "text/html; charset=utf-8";
  set.headers["cache-control"] = "no-store";
  return hasSessionCookie(headers.cookie) ? indexWithHint : indexHtml;
}

function asset({ path, headers, set }: { path: string; headers: Record<string, string | undefined>; set: { headers: Record<string, string | number>; status?: number | string } }) {
  const found = findAsset(path);
  if (!found) throw new GwError("not_found", `Unknown asset: ${path}`);
  const gzip = /\bgzip\b/.test(headers["accept-encoding"] ?? "");
  set.headers["cache-control"] = IMMUTABLE;
  set.headers.vary = "Accept-Encoding";
  set.headers.etag = gzip ? `"${found.etag}-gz"` : `"${found.etag}"`;
  if (notModified(headers["if-none-match"], found.etag)) {
    set.status = 304;
    return "";
  }
  set.headers["content-type"] = found.type;
  if (gzip) set.headers["content-encoding"] = "gzip";
  return gzip ? found.gzip : found.raw;
}

export const pagesRoute = () => {
  const app = new Elysia({ name: "gw-dashboard-pages" });
  for (const p of PAGE_PATHS) app.get(p, page);
  return app.get("/assets/*", asset);
};
