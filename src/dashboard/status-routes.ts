// The public status page (docs/monitoring.md "Status page"): the HTML page, its JSON and its stylesheet,
// no session; answers are kept a few seconds by StatusPage and by caches (Cache-Control).
import { Elysia } from "elysia";
import { STATUS_CSS } from "../monitoring/status/status-html.ts";
import type { Deps } from "../pipeline/deps.ts";
import { SECURITY_HEADERS } from "./security-headers.ts";

/** The dashboard's headers with a CSP for a page with no script: its own stylesheet only. */
export const STATUS_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  ...SECURITY_HEADERS,
  "content-security-policy": "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "cache-control": "public, max-age=5",
});

type Set = { headers: Record<string, string | number> };
const answer = (set: Set, type: string, body: string): string => {
  Object.assign(set.headers, STATUS_HEADERS);
  set.headers["content-type"] = type;
  return body;
};

export const statusRoutes = (deps: Deps) =>
  new Elysia({ name: "gw-status-page" })
    .get("/status", async ({ set }) => answer(set, "text/html; charset=utf-8", await deps.statusPage.html()))
    .get("/status.json", async ({ set }) => answer(set, "application/json", await deps.statusPage.json()))
    .get("/status.css", ({ set }) => {
      answer(set, "text/css; charset=utf-8", STATUS_CSS);
      set.headers["cache-control"] = "public, max-age=3600";
      return STATUS_CSS;
    });
