// The public /status page: server-rendered HTML with no script and no inline style, so it runs under
// a CSP of script-src 'none' and style-src 'self' (docs/monitoring.md "Status page").
import { statusForAvailability, type ComponentStatus } from "./health.ts";
import type { StatusSummary } from "./summary.ts";
import type { DayBar } from "./uptime.ts";

/** Bytes of escaped text kept on the page; the full text stays in the status JSON. */
const MAX_NAME = 120;
const MAX_BODY = 280;
/** Entries listed across open incidents, maintenance and recent incidents, in that order. */
const MAX_LISTED = 10;

const LABEL: Record<ComponentStatus, string> = {
  operational: "Operational",
  degraded_performance: "Degraded performance",
  partial_outage: "Partial outage",
  major_outage: "Major outage",
  under_maintenance: "Under maintenance",
};
/** One-letter bar classes keep 720 bars small: up, degraded, partial, major, no data. */
const BAR: Record<ComponentStatus, string> = {
  operational: "u",
  degraded_performance: "d",
  partial_outage: "p",
  major_outage: "m",
  under_maintenance: "u",
};

export const STATUS_CSS = `body{margin:0;font:15px/1.5 system-ui,sans-serif;color:#1f2328;background:#f6f8fa}
main{max-width:760px;margin:0 auto;padding:24px 16px}
h1{font-size:24px;margin:0 0 16px}h2{font-size:18px;margin:24px 0 8px}h3{font-size:15px;margin:0}
.banner{padding:12px 16px;border-radius:6px;color:#fff;font-weight:600;background:#1a7f37}
.s-minor{background:#bf8700}.s-major{background:#d1580b}.s-critical{background:#cf222e}
.components{list-style:none;margin:0;padding:0}
.components>li{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:12px 16px;margin:0 0 8px}
.row{display:flex;justify-content:space-between;gap:8px}.name{font-weight:600}
.st-operational{color:#1a7f37}.st-degraded_performance{color:#9a6700}.st-partial_outage{color:#bc4c00}
.st-major_outage{color:#cf222e}.st-under_maintenance{color:#0969da}
.bars{list-style:none;padding:0;display:grid;grid-template-columns:repeat(90,1fr);gap:1px;height:28px;margin:8px 0 4px}
.bars li{border-radius:1px;background:#1a7f37}.bars .d{background:#bf8700}
.bars .p{background:#d1580b}.bars .m{background:#cf222e}.bars .n{background:#d0d7de}
.legend{display:flex;justify-content:space-between;color:#59636e;font-size:12px}
.incident{background:#fff;border:1px solid #d0d7de;border-left:4px solid #d0d7de;border-radius:6px;padding:8px 16px;margin:0 0 8px}
.i-minor{border-left-color:#bf8700}.i-major{border-left-color:#d1580b}.i-critical{border-left-color:#cf222e}
.i-maintenance{border-left-color:#0969da}.meta{color:#59636e;font-size:13px;margin:2px 0}
footer{color:#59636e;font-size:13px;margin-top:24px}
`;

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Escapes `s` and cuts it so the result stays within `maxBytes` of UTF-8, whatever it holds. */
export function clipEscaped(s: string, maxBytes: number): string {
  let out = "";
  let bytes = 0;
  for (const ch of s) {
    const piece = escapeHtml(ch);
    const size = Buffer.byteLength(piece);
    if (bytes + size > maxBytes - 3) return `${out}…`;
    out += piece;
    bytes += size;
  }
  return out;
}

function percent(u: number | null): string {
  return u === null ? "no data" : `${(Math.floor(u * 10_000) / 100).toFixed(2)}%`;
}

function bars(days: readonly DayBar[]): string {
  return days.map((d) => `<li class=${d.uptime === null ? "n" : BAR[statusForAvailability(d.uptime)]}>`).join("");
}

interface Listed {
  id: string;
  name: string;
  status: string;
  impact: string;
  started_at: string;
  resolved_at: string | null;
  incident_updates: { body: string }[];
}

function incidentHtml(x: Listed, when: string): string {
  const latest = x.incident_updates[0];
  return `<article id="${escapeHtml(x.id)}" class="incident i-${escapeHtml(x.impact)}"><h3>${clipEscaped(x.name, MAX_NAME)}</h3>`
    + `<p class=meta>${escapeHtml(x.status.replace("_", " "))} · ${escapeHtml(when)}</p>`
    + (latest ? `<p>${clipEscaped(latest.body, MAX_BODY)}</p>` : "")
    + "</article>";
}

/** Lists up to `room` items; the rest are counted, not shown, to keep the page small. */
function section<T extends Listed>(title: string, items: readonly T[], room: number, empty: string, when: (x: T) => string): string {
  const shown = items.slice(0, Math.max(0, room)).map((x) => incidentHtml(x, when(x))).join("");
  const more = items.length > room ? `<p>${items.length - Math.max(0, room)} more in <a href=/status.json>/status.json</a>.</p>` : "";
  return `<section><h2>${title}</h2>${items.length === 0 ? `<p>${empty}</p>` : shown + more}</section>`;
}

/** `daily` holds each component's 90 bars by component id (statusDaily); a missing id shows no data. */
export function renderStatusHtml(summary: StatusSummary, daily: Readonly<Record<string, readonly DayBar[]>>): string {
  const uptime = new Map(summary.gw.components.map((c) => [c.id, c.uptime["90d"]]));
  const components = summary.components.map((c) => {
    const days = daily[c.id] ?? [];
    return `<li><div class=row><span class=name>${escapeHtml(c.name)}</span>`
      + `<span class=st-${c.status}>${LABEL[c.status]}</span></div>`
      + `<ul class=bars aria-label="Daily uptime, last ${days.length} days">${bars(days)}</ul>`
      + `<div class=legend><span>${days.length} days ago</span><span>${percent(uptime.get(c.id) ?? null)} uptime</span><span>Today</span></div></li>`;
  }).join("");
  const name = escapeHtml(summary.page.name);
  const { incidents: open, scheduled_maintenances: windows } = summary;
  const maintenances = windows.length === 0 ? "" : section(
    "Scheduled maintenance", windows, MAX_LISTED - open.length, "", (m) => `${m.scheduled_for} to ${m.scheduled_until}`,
  );
  return "<!doctype html><html lang=en><head><meta charset=utf-8>"
    + "<meta name=viewport content=\"width=device-width,initial-scale=1\">"
    + `<title>${name} status</title><link rel=stylesheet href=/status.css></head><body><main>`
    + `<h1>${name}</h1><p class="banner s-${summary.status.indicator}">${escapeHtml(summary.status.description)}</p>`
    + `<section><h2>Components</h2><ul class=components>${components}</ul></section>`
    + section("Open incidents", open, MAX_LISTED, "No open incidents.", (x) => `since ${x.started_at}`)
    + maintenances
    + section("Recent incidents", summary.gw.recent_incidents, MAX_LISTED - open.length - windows.length, "No incidents in the last 7 days.", (x) => `resolved ${x.resolved_at ?? ""}`)
    + `<footer>Updated ${escapeHtml(summary.page.updated_at)}. Machine-readable: <a href=/status.json>/status.json</a></footer>`
    + "</main></body></html>";
}
