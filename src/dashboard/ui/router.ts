// The URL is the view's state (docs/dashboard.md "Pages"): path, `?project=`, period and filters,
// so a view can be shared. History API only; no hash routing.
import { computed, signal } from "@preact/signals";

export const location = signal(new URL(window.location.href));

export const path = computed(() => location.value.pathname);
export const query = computed(() => location.value.searchParams);

window.addEventListener("popstate", () => {
  location.value = new URL(window.location.href);
});

/** A same-origin href that keeps `?project=` unless `params` sets it. */
export function href(pathname: string, params: Record<string, string | null | undefined> = {}): string {
  const q = new URLSearchParams();
  const project = query.value.get("project");
  if (project) q.set("project", project);
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === "") q.delete(k);
    else q.set(k, v);
  }
  const s = q.toString();
  return `${pathname}${s ? `?${s}` : ""}`;
}

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  location.value = new URL(window.location.href);
}

/** Changes query parameters of the current page (null removes one). */
export function setQuery(params: Record<string, string | null | undefined>, replace = false): void {
  const q = new URLSearchParams(location.value.searchParams);
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === "") q.delete(k);
    else q.set(k, v);
  }
  const s = q.toString();
  navigate(`${location.value.pathname}${s ? `?${s}` : ""}`, replace);
}
