// The signed-in frame (docs/dashboard.md "Pages"): navigation, the operator's project switcher and
// Sign out around the page. Every link keeps `?project=`.
import { signal } from "@preact/signals";
import type { ComponentChildren, JSX } from "preact";
import { useEffect } from "preact/hooks";
import { ApiError, getJson, send, session } from "./api.ts";
import * as Icons from "./icons.tsx";
import { href, path, query, setQuery } from "./router.ts";
import type { List, ProjectSummary } from "./types.ts";

interface NavItem { to: string; label: string; icon: () => JSX.Element; operatorOnly?: true }

const NAV: NavItem[] = [
  { to: "/", label: "Overview", icon: Icons.OverviewIcon },
  { to: "/requests", label: "Requests", icon: Icons.RequestsIcon },
  { to: "/cache", label: "Cache", icon: Icons.CacheIcon },
  { to: "/recommendations", label: "Recommendations", icon: Icons.RecommendationsIcon },
  { to: "/projects", label: "Projects", icon: Icons.ProjectsIcon, operatorOnly: true },
  { to: "/monitoring", label: "Monitoring", icon: Icons.MonitoringIcon },
  { to: "/status-admin", label: "Status page", icon: Icons.StatusIcon, operatorOnly: true },
  { to: "/audit", label: "Audit log", icon: Icons.AuditIcon },
];

const projects = signal<ProjectSummary[] | null>(null);
const shellError = signal<string | null>(null);

const message = (e: unknown) => (e instanceof Error ? e.message : "The gateway did not answer.");

/** Reloads the switcher's list (the Projects page may call it after creating one). */
export async function loadProjects(): Promise<void> {
  try {
    const list = await getJson<List<ProjectSummary>>("/projects");
    projects.value = list.data;
    shellError.value = null;
    // The operator's default is the first project created (the list is oldest first).
    const first = list.data[0];
    if (!query.value.get("project") && first) setQuery({ project: first.id }, true);
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 401)) shellError.value = `Projects could not be loaded: ${message(e)}`;
  }
}

async function signOut(): Promise<void> {
  try {
    await send("DELETE", "/session");
  } catch (e) {
    // A session that already ended is signed out all the same.
    if (!(e instanceof ApiError && e.status === 401)) {
      shellError.value = `Sign out failed: ${message(e)}`;
      return;
    }
  }
  projects.value = null;
  session.value = null;
}

function active(to: string): boolean {
  const p = path.value;
  return to === "/" ? p === "/" : p === to || p.startsWith(`${to}/`);
}

function ProjectSwitcher() {
  const list = projects.value;
  if (!list) return null;
  const current = query.value.get("project") ?? list[0]?.id ?? "";
  return (
    // A label beside the select (not around it): its accessible name is then exactly "Project".
    <div class="switcher">
      <label for="gw-project">Project</label>
      <select id="gw-project" value={current} onChange={(e) => setQuery({ project: e.currentTarget.value })}>
        {list.map((p) => <option key={p.id} value={p.id}>{p.name} ({p.id})</option>)}
      </select>
    </div>
  );
}

export function Layout({ children }: { children: ComponentChildren }) {
  const s = session.value;
  const operator = s?.role === "operator";
  const current = path.value;
  // Again on every page change, so a project created on the Projects page appears in the switcher.
  useEffect(() => {
    if (operator) void loadProjects();
  }, [operator, current]);
  return (
    <div class="shell">
      <header class="topbar">
        <a class="brand" href={href("/")} aria-label="gw dashboard home"><Icons.LogoIcon /> gw</a>
        <div class="topbar-right">
          {operator ? <ProjectSwitcher /> : <span class="who">{s?.email ?? s?.project_id ?? ""}</span>}
          <button type="button" class="btn btn-quiet" onClick={() => void signOut()}><Icons.SignOutIcon /> Sign out</button>
        </div>
      </header>
      <nav class="sidenav" aria-label="Dashboard">
        <ul>
          {NAV.filter((n) => operator || !n.operatorOnly).map((n) => (
            <li key={n.to}>
              <a href={href(n.to)} aria-current={active(n.to) ? "page" : undefined}><n.icon /> {n.label}</a>
            </li>
          ))}
        </ul>
      </nav>
      <main class="content" id="main">
        {shellError.value && <p role="alert" class="alert">{shellError.value}</p>}
        {/* The operator's page waits for its project (the switcher's default), so it loads once. */}
        {operator && !query.value.get("project") && projects.value === null && !shellError.value
          ? <p class="loading" aria-live="polite">Loading…</p>
          : children}
      </main>
    </div>
  );
}
