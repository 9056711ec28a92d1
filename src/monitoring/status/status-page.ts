// deps.statusPage: the public status JSON and HTML built from the status rollups, the operator's posts
// and built-in provider incidents, each kept for a few seconds so a burst costs one build; and the
// operator's posts (docs/monitoring.md "Status page", "Status posts"). The sources are SQLite's or,
// with several instances, PostgreSQL's (docs/scale-out.md), so its methods are asynchronous.
import { GwError } from "../../errors/gw-error.ts";
import type { Clock } from "../../lib/clock.ts";
import { percentile } from "../../lib/histogram.ts";
import { sortableId } from "../../lib/ids.ts";
import type { StatusPostRow, StatusPostsStore } from "../../store/repos/status-posts.ts";
import type { StatusRollupsSource } from "../../store/repos/status-rollups.ts";
import type { Indicator } from "./health.ts";
import { parseIncident, parseMaintenance, parseUpdate, patchPost, postView, type NewPost, type StatusPostView } from "./posts.ts";
import { renderStatusHtml } from "./status-html.ts";
import { RECENT_MS, statusDaily, statusSummary, type StatusComponentInput, type StatusIncidentInput, type StatusInput, type StatusUpdateInput } from "./summary.ts";
import { DAYS, utcDay, type DayCount } from "./uptime.ts";

/** What the page needs of a built-in provider rule's incident (alerts' BuiltInIncident). */
export interface BuiltInStatusIncident {
  id: string; component: string; rule_name: string; severity: string; metric: string; opened_at: number; resolved_at: number | null;
}

export interface StatusPageOptions {
  rollups: StatusRollupsSource;
  posts: StatusPostsStore;
  clock: Clock;
  /** Enabled provider ids, in the order shown. */
  providers: () => readonly string[];
  builtInIncidents: (sinceMs: number) => Promise<BuiltInStatusIncident[]>;
  page: { name: string; url: string };
  /** How long a built answer is served again (default 5 s). */
  cacheMs?: number;
}

const MINUTE = 60_000;
/** How long a component's baseline and finished days are reused. */
const SLOW_MS = 5 * MINUTE;
interface Slow { at: number; today: string; baselineP95: number | null; pastDays: DayCount[] }
/** The recent window a component's current status is judged on, and its latency baseline's. */
export const RECENT_WINDOW_MS = 5 * MINUTE;
export const BASELINE_MS = 7 * 86_400_000;
const IMPACT_OF: Record<string, Indicator> = { info: "none", warning: "minor", critical: "major" };
const NAMES: Record<string, string> = { api: "API", routing: "Routing", cache: "Cache" };
const DESCRIPTIONS: Record<string, string> = {
  api: "Every request gw answers.", routing: "Choosing a model and falling back.", cache: "Answers from the response cache.",
};

/** The public id of a rollup component: "provider:openai" -> "provider-openai". */
export const publicComponentId = (component: string): string => component.replace(":", "-");

export class StatusPage {
  private cached: { at: number; input: StatusInput; json: string | null; html: string | null } | null = null;
  /** A build under way: a burst of requests waits for the one build. */
  private building: Promise<NonNullable<StatusPage["cached"]>> | null = null;
  private readonly slow = new Map<string, Slow>();

  constructor(private readonly o: StatusPageOptions) {}

  /** The component ids posts may name: api, routing, cache, provider-<id>. */
  componentIds(): string[] {
    return ["api", "routing", "cache", ...this.o.providers().map((p) => `provider-${p}`)];
  }

  async json(): Promise<string> {
    const c = await this.current();
    return (c.json ??= JSON.stringify(statusSummary(c.input, c.at)));
  }

  async html(): Promise<string> {
    const c = await this.current();
    return (c.html ??= renderStatusHtml(statusSummary(c.input, c.at), statusDaily(c.input, c.at)));
  }

  private async current(): Promise<NonNullable<StatusPage["cached"]>> {
    const now = this.o.clock.now();
    const ttl = this.o.cacheMs ?? 5000;
    const c = this.cached;
    if (c !== null && now - c.at < ttl && now >= c.at) return c;
    // Its store out of reach (several instances: PostgreSQL), the page last built is served rather
    // than an error: a status page is read most when something is down.
    this.building ??= this.build(now)
      .then((input) => (this.cached = { at: now, input, json: null, html: null }))
      .catch((err: unknown) => {
        if (c === null) throw err;
        return c;
      })
      .finally(() => (this.building = null));
    return this.building;
  }

  /** The 7-day baseline and the finished days' counts barely move: read again every few minutes
   * and when the UTC day turns, so a build reads mostly the last 24 hours. */
  private async slowPart(rollup: string, now: number, end: number): Promise<Slow> {
    const today = utcDay(now);
    let slow = this.slow.get(rollup);
    if (!slow || slow.today !== today || now - slow.at >= SLOW_MS || now < slow.at) {
      const [baseline, days] = await Promise.all([this.o.rollups.totals(rollup, end - BASELINE_MS, end), this.o.rollups.daily(rollup, DAYS, now)]);
      const pastDays = days.filter((d) => d.day < today);
      this.slow.set(rollup, (slow = { at: now, today, baselineP95: percentile(baseline.latency, 95), pastDays }));
    }
    return slow;
  }

  private async build(now: number): Promise<StatusInput> {
    const end = now - (now % MINUTE) + MINUTE;
    const rollups = ["api", "routing", "cache", ...this.o.providers().map((p) => `provider:${p}`)];
    const components = await Promise.all(rollups.map(async (rollup): Promise<StatusComponentInput> => {
      const [recent, day, slow, today] = await Promise.all([
        this.o.rollups.totals(rollup, end - RECENT_WINDOW_MS, end),
        this.o.rollups.totals(rollup, end - 86_400_000, end),
        this.slowPart(rollup, now, end),
        this.o.rollups.daily(rollup, 1, now),
      ]);
      const daily = [...slow.pastDays, ...today];
      const first = daily[0] ? Date.parse(`${daily[0].day}T00:00:00Z`) : now;
      const provider = rollup.startsWith("provider:") ? rollup.slice(9) : null;
      return {
        id: publicComponentId(rollup),
        name: NAMES[rollup] ?? provider ?? rollup,
        description: DESCRIPTIONS[rollup] ?? `Requests answered by ${provider}.`,
        createdAt: first,
        health: { requests: recent.requests, ok: recent.ok, latencyP95Ms: percentile(recent.latency, 95), baselineP95Ms: slow.baselineP95 },
        last24h: { requests: day.requests, ok: day.ok },
        daily,
      };
    }));
    const posts = await this.o.posts.shown(now - RECENT_MS, now);
    const [byPost, builtIn] = await Promise.all([this.o.posts.updatesOf(posts.map((p) => p.id)), this.o.builtInIncidents(now - RECENT_MS)]);
    const updates = (p: StatusPostRow) => (byPost.get(p.id) ?? []).map((u) => ({ id: u.id, status: u.status as StatusUpdateInput["status"], body: u.body, createdAt: u.createdAt }));
    const incidents: StatusIncidentInput[] = posts.filter((p) => p.kind === "incident").map((p) => ({
      id: p.id, name: p.name, status: p.status as StatusIncidentInput["status"], impact: p.impact as Indicator, createdAt: p.createdAt,
      updatedAt: p.updatedAt, monitoringAt: p.monitoringAt, resolvedAt: p.resolvedAt, componentIds: p.components, updates: updates(p),
    }));
    for (const b of builtIn) incidents.push(builtInInput(b));
    const maintenances = posts.filter((p) => p.kind === "maintenance").map((p) => ({
      id: p.id, name: p.name, createdAt: p.createdAt, updatedAt: p.updatedAt, componentIds: p.components, updates: updates(p),
      scheduledFor: p.scheduledFor ?? p.createdAt, scheduledUntil: p.scheduledUntil ?? p.createdAt, completedAt: p.resolvedAt,
    }));
    return { page: { id: "gw", name: this.o.page.name, url: this.o.page.url, timeZone: "Etc/UTC" }, components, incidents, maintenances };
  }

  // Operator posts (admin API): each change drops the cached answers, so the page shows it at once.

  async posts(q: { limit?: number; after?: string }): Promise<{ object: "list"; data: StatusPostView[]; has_more: boolean }> {
    const limit = Math.min(Math.max(q.limit ?? 20, 1), 100);
    const rows = (await this.o.posts.page(limit + 1, q.after)).slice(0, limit + 1);
    const shown = rows.slice(0, limit);
    const byPost = await this.o.posts.updatesOf(shown.map((p) => p.id));
    const now = this.o.clock.now();
    return { object: "list", data: shown.map((p) => postView(p, byPost.get(p.id) ?? [], now)), has_more: rows.length > limit };
  }

  createIncident(body: unknown): Promise<StatusPostView> {
    return this.create("spi", parseIncident(body, this.componentIds()));
  }

  createMaintenance(body: unknown): Promise<StatusPostView> {
    return this.create("spm", parseMaintenance(body, this.componentIds()));
  }

  async updatePost(id: string, body: unknown): Promise<StatusPostView> {
    const now = this.o.clock.now();
    const post = patchPost(await this.need(id), body, this.componentIds(), now);
    await this.o.posts.save(post, null);
    return this.view(post, now);
  }

  async addUpdate(id: string, body: unknown): Promise<StatusPostView> {
    const now = this.o.clock.now();
    const u = parseUpdate(await this.need(id), body, now);
    await this.o.posts.save(u.post, { id: `spu_${sortableId(now)}`, postId: id, status: u.status, body: u.body, createdAt: now });
    return this.view(u.post, now);
  }

  async removePost(id: string): Promise<{ object: string; id: string; deleted: true }> {
    const post = await this.need(id);
    await this.o.posts.remove(id);
    this.cached = null;
    return { object: post.kind === "incident" ? "status_incident" : "status_maintenance", id, deleted: true };
  }

  private async create(prefix: "spi" | "spm", p: NewPost): Promise<StatusPostView> {
    const now = this.o.clock.now();
    const post: StatusPostRow = { ...p.post, id: `${prefix}_${sortableId(now)}`, createdAt: now, updatedAt: now };
    const status = post.kind === "incident" ? post.status : "scheduled";
    await this.o.posts.create(post, { id: `spu_${sortableId(now)}`, postId: post.id, status, body: p.body, createdAt: now });
    return this.view(post, now);
  }

  /** A change drops this instance's cached page; the others' show it within their cache's 5 s. */
  private async view(post: StatusPostRow, now: number): Promise<StatusPostView> {
    this.cached = null;
    return postView(post, await this.o.posts.updates(post.id), now);
  }

  private async need(id: string): Promise<StatusPostRow> {
    const post = await this.o.posts.get(id);
    if (!post) throw new GwError("not_found", `No status post with id '${id}'.`, { param: "post_id" });
    return post;
  }
}

/** A built-in rule's incident as the page lists it: open ones are being investigated. */
function builtInInput(b: BuiltInStatusIncident): StatusIncidentInput {
  const component = publicComponentId(b.component);
  return {
    id: b.id, name: b.rule_name, status: b.resolved_at === null ? "investigating" : "resolved", impact: IMPACT_OF[b.severity] ?? "minor",
    createdAt: b.opened_at, updatedAt: b.resolved_at ?? b.opened_at, monitoringAt: null, resolvedAt: b.resolved_at,
    componentIds: [component],
    updates: [{ id: `${b.id}_detected`, status: b.resolved_at === null ? "investigating" : "resolved", body: `Detected automatically: ${b.metric} on ${component}.`, createdAt: b.resolved_at ?? b.opened_at }],
  };
}

/** The page's address in the status JSON (`page.url`, shortlinks): GW_PUBLIC_URL's, else gw's
 * listening address. */
export const statusPageUrl = (host: string, port: number, publicUrl: string | null = null): string =>
  publicUrl ? `${publicUrl}/status` : `http://${host === "0.0.0.0" || host === "::" ? "localhost" : host.includes(":") ? `[${host}]` : host}:${port}/status`;
