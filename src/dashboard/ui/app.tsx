// The app shell (docs/dashboard.md "Pages"): asks for the session once, then shows the sign-in page or
// the layout with the page the path names. Links to pages navigate in the browser, without a reload.
import { signal, useSignalEffect } from "@preact/signals";
import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import { ApiError, API_PREFIX, getJson, session } from "./api.ts";
import { Layout } from "./layout.tsx";
import { AuditPage } from "./pages/audit.tsx";
import { CachePage } from "./pages/cache.tsx";
import { MonitoringPage } from "./pages/monitoring.tsx";
import { OverviewPage } from "./pages/overview.tsx";
import { ProjectsPage } from "./pages/projects.tsx";
import { RecommendationsPage } from "./pages/recommendations.tsx";
import { RequestDetailPage } from "./pages/request-detail.tsx";
import { RequestsPage } from "./pages/requests.tsx";
import { StatusAdminPage } from "./pages/status-admin.tsx";
import { navigate, path } from "./router.ts";
import { SignInPage } from "./sign-in.tsx";
import type { Session } from "./types.ts";

interface Route { title: string; view: () => ComponentChildren }

const PAGES: Record<string, Route> = {
  "/": { title: "Overview", view: () => <OverviewPage /> },
  "/requests": { title: "Requests", view: () => <RequestsPage /> },
  "/cache": { title: "Cache", view: () => <CachePage /> },
  "/recommendations": { title: "Recommendations", view: () => <RecommendationsPage /> },
  "/projects": { title: "Projects", view: () => (session.value?.role === "operator" ? <ProjectsPage /> : <OperatorOnly />) },
  "/monitoring": { title: "Monitoring", view: () => <MonitoringPage /> },
  "/status-admin": { title: "Status page", view: () => (session.value?.role === "operator" ? <StatusAdminPage /> : <OperatorOnly title="Status page" what="The status page is" />) },
  "/audit": { title: "Audit log", view: () => <AuditPage /> },
};

const DETAIL = /^\/requests\/([^/]+)$/;

/** The page a path names, or null (the server answers 404 for those; this is for stale links). */
export function routeFor(pathname: string): Route | null {
  const page = PAGES[pathname];
  if (page) return page;
  const m = DETAIL.exec(pathname);
  if (!m?.[1]) return null;
  const id = decodeURIComponent(m[1]);
  return { title: id, view: () => <RequestDetailPage key={id} requestId={id} /> };
}

/** "pending" while the first GET /session is out. */
const checked = signal<"pending" | "done">("pending");
const startError = signal<string | null>(null);

/** The server marks the page when the browser sent a session cookie; without one, GET /session could
 * only answer 401, which the browser would print in its console. */
const mayHaveSession = () => document.querySelector('meta[name="gw-session"]') !== null;

async function loadSession(): Promise<void> {
  if (!mayHaveSession()) {
    checked.value = "done";
    return;
  }
  try {
    session.value = await getJson<Session>("/session");
  } catch (e) {
    session.value = null;
    // 401 is the ordinary signed-out answer; anything else is worth saying on the sign-in page.
    if (!(e instanceof ApiError && e.status === 401)) startError.value = e instanceof Error ? e.message : "The gateway did not answer.";
  } finally {
    checked.value = "done";
  }
}

/** Same-origin links to pages navigate in place; downloads, new tabs and API links are left alone. */
function onDocumentClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const target = event.target instanceof Element ? event.target.closest("a") : null;
  if (!(target instanceof HTMLAnchorElement) || target.hasAttribute("download") || (target.target && target.target !== "_self")) return;
  const url = new URL(target.href, window.location.href);
  if (url.origin !== window.location.origin || url.pathname.startsWith(API_PREFIX) || !routeFor(url.pathname)) return;
  event.preventDefault();
  navigate(url.pathname + url.search + url.hash);
  window.scrollTo(0, 0);
}

function NotFound() {
  return (
    <>
      <h1>Page not found</h1>
      <p>Nothing lives at this address. <a href="/">Go to the overview</a>.</p>
    </>
  );
}

function OperatorOnly({ title = "Projects", what = "Projects and keys are" }: { title?: string; what?: string }) {
  return (
    <>
      <h1>{title}</h1>
      <p class="muted">{what} managed by the operator (sign in with the admin token).</p>
    </>
  );
}

export function App() {
  useEffect(() => {
    void loadSession();
    document.addEventListener("click", onDocumentClick);
    return () => document.removeEventListener("click", onDocumentClick);
  }, []);
  useSignalEffect(() => {
    const route = session.value ? routeFor(path.value) : null;
    const name = !session.value ? (checked.value === "done" ? "Sign in" : "Loading") : route ? route.title : "Page not found";
    document.title = `${name} · gw`;
  });
  if (checked.value === "pending") return <p class="loading" aria-live="polite">Loading…</p>;
  if (!session.value) return <SignInPage startError={startError.value} />;
  const route = routeFor(path.value);
  return <Layout>{route ? route.view() : <NotFound />}</Layout>;
}
