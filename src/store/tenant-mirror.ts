// Multi-instance mode (docs/scale-out.md): each instance's SQLite projects, api_keys and
// provider_keys are a mirror of PostgreSQL's, so their synchronous readers stay as they are. Loaded
// whole at start and every 30 s; a row named on the bus is re-read; a key not mirrored is asked for.
import type { Database } from "bun:sqlite";
import { existsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { TenantRows, TenantSnapshot } from "./postgres/tenant.ts";
import type { TenantBus, TenantChange } from "./redis/bus.ts";
import type { ApiKey } from "./repos/api-keys.ts";
import type { TenantStores } from "./tenant-store.ts";
import { identity, mirrorStatements } from "./tenant-mirror-sql.ts";
import { ProjectChanged, TenantWrite, tenantUnavailable, type MirroredRepos } from "./tenant-mirror-writes.ts";

/** Marks a data directory whose tenant tables are a mirror (so replacing them loses nothing). */
export const MIRROR_MARKER = "postgres-mirror";

/** The full reload's period: what a message lost while Redis was away costs at most. */
export const RELOAD_MS = 30_000;
/** The reload's period while the bus is not listening: a digest query when nothing changed. */
const POLL_MS = 1_000;
/** Hashes PostgreSQL did not know are not asked again for this long (or until the mirror changes):
 * a bad key sent again and again costs one lookup, not one each. A key made later has a secret of
 * its own, so this never hides a real key. */
const UNKNOWN_TTL_MS = 60_000;
const UNKNOWN_MAX = 10_000;

export class TenantMirror {
  private db: Database | null = null;
  private sql: ReturnType<typeof mirrorStatements> | null = null;
  private repos: MirroredRepos | null = null;
  private changed: () => void = () => {};
  private timer: ReturnType<typeof setInterval> | null = null;
  private stopped = false;
  /** Counts rows mirrored one by one, so a reload can tell its snapshot may be older than them. */
  private version = 0;
  private unknown = new Map<string, number>();
  /** The last snapshot applied whole, and the version then: unchanged both, a reload stops at the digest. */
  private applied: { digest: string; version: number } | null = null;
  private subscribed = false;
  private subscribeFailed = false;
  private subscribing = false;
  private reloading: Promise<void> | null = null;
  private reloadedAt = 0;
  private failing = false;
  /** The reload applying a snapshot now (public reload() calls wait for it rather than interleave). */
  private inFlight: Promise<void> | null = null;
  /** While a snapshot is applied in slices: the rows mirrored one by one meanwhile, which it skips. */
  private touched: Set<string> | null = null;

  constructor(
    readonly instanceId: string,
    private readonly stores: TenantStores,
    private readonly rows: TenantRows,
    private readonly bus: TenantBus,
    /** PostgreSQL's rows when the instance started: applied by attach(). */
    private initial: TenantSnapshot | null,
    private readonly onError: (err: unknown, context: string) => void,
  ) {}

  /** buildDeps, before anything reads the repos: the mirror becomes PostgreSQL's rows. A data
   * directory used single-node before, with projects PostgreSQL lacks, is refused rather than
   * emptied (they would be lost before `gw migrate-to-postgres` copied them). */
  attach(db: Database, repos: MirroredRepos): void {
    const marker = join(dirname(db.filename), MIRROR_MARKER);
    if (this.initial && !existsSync(marker)) {
      const known = new Set(this.initial.projects.map((p) => p.id));
      const own = repos.projects.list().filter((p) => !known.has(p.id)).length;
      if (own > 0) {
        throw new Error(`this data directory (${dirname(db.filename)}) holds ${own} project(s) PostgreSQL does not have: run 'gw migrate-to-postgres' with it first, ` +
          "or give each instance an empty data directory (docs/scale-out.md)");
      }
      writeFileSync(marker, "This directory's projects, API keys and provider keys are a copy of PostgreSQL's, replaced at each start.\n");
    }
    this.db = db;
    this.sql = mirrorStatements(db);
    this.repos = repos;
    if (this.initial) this.replace(this.initial);
    this.initial = null;
  }

  /** Told after the mirror changed: caches resolved from its rows (keys, provider keys) are dropped. */
  onChange(listener: () => void): void {
    this.changed = listener;
  }

  /** Subscribes, then reloads once (a change between the start's load and the subscription would
   * otherwise wait for the period), then every RELOAD_MS; every POLL_MS while the bus is not
   * listening (Redis away), so a revoke still reaches this instance within about a second. */
  async start(): Promise<void> {
    this.timer = setInterval(() => this.tick(), POLL_MS);
    this.timer.unref?.();
    await this.subscribe();
    await this.reloadLogged();
  }

  private async subscribe(): Promise<void> {
    if (this.subscribing) return;
    this.subscribing = true;
    try {
      await this.bus.subscribe((change) => void this.apply(change), () => void this.reloadLogged(),
        (err) => this.onError(err, "tenant invalidation bus not subscribed again: changes made elsewhere are polled for"));
      this.subscribed = true;
    } catch (err) {
      if (!this.subscribeFailed) this.onError(err, "tenant invalidation bus not subscribed: changes made elsewhere are polled for");
      this.subscribeFailed = true;
    } finally {
      this.subscribing = false;
    }
  }

  private tick(): void {
    if (this.stopped || this.reloading) return;
    if (!this.subscribed) void this.subscribe();
    if (this.bus.listening() && performance.now() - this.reloadedAt < RELOAD_MS) return;
    void this.reloadLogged();
  }

  /** A reload whose failure is logged once until one succeeds; after a failure the next tick tries again. */
  private async reloadLogged(): Promise<void> {
    if (this.reloading) return this.reloading;
    this.reloadedAt = performance.now();
    this.reloading = this.reload().then(() => {
      this.failing = false;
    }, (err: unknown) => {
      if (!this.failing) this.onError(err, "tenant mirror reload failed (tried again each second)");
      this.failing = true;
      this.reloadedAt = -RELOAD_MS;
    }).finally(() => {
      this.reloading = null;
    });
    return this.reloading;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.bus.unsubscribe().catch(() => {});
  }

  /** Every row again from PostgreSQL, in one transaction there and in slices here (one at a time). */
  async reload(): Promise<void> {
    while (this.inFlight) await this.inFlight.catch(() => {});
    const run = this.reloadOnce();
    this.inFlight = run;
    try {
      await run;
    } finally {
      if (this.inFlight === run) this.inFlight = null;
    }
  }

  private async reloadOnce(): Promise<void> {
    // A snapshot read while a row was mirrored may predate it: read again rather than undo it.
    for (let tries = 0; tries < 3 && !this.stopped; tries++) {
      const version = this.version;
      if (this.applied?.version === version && (await this.rows.digest()) === this.applied.digest) return;
      const snapshot = await this.rows.snapshot();
      if (version === this.version && !this.stopped) return this.replaceInSlices(snapshot);
    }
  }

  /** The snapshot applied a slice (about 2 ms, one SQLite transaction) at a time, yielding to the
   * event loop between them, so requests are served meanwhile. Revocations go in the first slices;
   * caches are dropped after each slice that changed a row; rows mirrored one by one meanwhile
   * (newer than the snapshot) are left alone. */
  private async replaceInSlices(s: TenantSnapshot): Promise<void> {
    const { db, sql } = this.attached();
    const version = this.version;
    const touched = new Set<string>();
    this.touched = touched;
    try {
      const steps = sql.syncSlices(s, (id) => touched.has(id));
      const step = db.transaction(() => steps.next());
      for (;;) {
        const r = step();
        if (r.value > 0) this.changedRows();
        if (r.done) break;
        if (this.stopped) return void steps.return(0);
        await new Promise((resolve) => setImmediate(resolve));
      }
      // A row mirrored meanwhile moved the version: the next reload compares again.
      this.applied = { digest: s.digest, version };
    } finally {
      this.touched = null;
    }
  }

  /** One admin write: see src/store/tenant-mirror-writes.ts. */
  write(): TenantWrite {
    const repos = this.attached().repos;
    return new TenantWrite(repos, this.stores, this.rows, {
      project: (p) => this.mirrorWith(identity.project(p.id), () => this.attached().sql.project(p)),
      key: (k) => this.mirrorWith(identity.key(k.id), () => this.attached().sql.key(k)),
      providerKey: (k, gone) => this.mirrorWith(identity.providerKey(k.projectId, k.provider),
        () => (gone ? repos.providerKeys.delete(k.projectId, k.provider) : repos.providerKeys.put(k))),
      published: (change) => this.bus.publish({ ...change, from: this.instanceId }).catch((err) =>
        this.onError(err, "tenant change not published: other instances see it with their periodic reload")),
    });
  }

  /** Authentication of a key the mirror does not hold (made elsewhere a moment ago): PostgreSQL's
   * row, mirrored with its project. Rejects with a 503 GwError when PostgreSQL cannot answer. */
  async lookUpKey(hash: string): Promise<ApiKey | null> {
    const now = Date.now();
    if ((this.unknown.get(hash) ?? 0) > now) return null;
    try {
      const key = await this.stores.keys.findByHash(hash);
      if (!key) {
        if (this.unknown.size >= UNKNOWN_MAX) this.unknown.clear();
        this.unknown.set(hash, now + UNKNOWN_TTL_MS);
        return null;
      }
      if (!(await this.ensureProject(key.projectId))) return null;
      this.mirrorWith(identity.key(key.id), () => this.attached().sql.key(key), false);
      return key;
    } catch (err) {
      throw tenantUnavailable(err);
    }
  }

  /** Whether an admin call names a project or key this mirror lacks: one made on another instance a
   * moment ago whose message is still on its way, or none at all. */
  lacks(ids: { project?: string; key?: string }): boolean {
    const { repos } = this.attached();
    return (ids.project !== undefined && !repos.projects.get(ids.project)) || (ids.key !== undefined && !repos.apiKeys.get(ids.key));
  }

  /** Those rows read from PostgreSQL into the mirror (nothing when it has none either); a 503
   * GwError when PostgreSQL cannot answer. */
  async fetch(ids: { project?: string; key?: string }, fresh = false): Promise<void> {
    try {
      if (ids.project !== undefined) await this.ensureProject(ids.project, fresh);
      if (ids.key === undefined) return;
      const k = await this.rows.key(ids.key);
      if (k && (await this.ensureProject(k.projectId))) this.mirrorWith(identity.key(k.id), () => this.attached().sql.key(k));
    } catch (err) {
      throw tenantUnavailable(err);
    }
  }

  /** An admin change computed from the project's row (a PATCH merges into its policy): the row is
   * read from PostgreSQL first, and again when another write came between (3 tries, then 409). */
  async updating<T>(projectId: string, run: () => T | Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      await this.fetch({ project: projectId }, true);
      try {
        return await run();
      } catch (err) {
        if (!(err instanceof ProjectChanged) || attempt >= 3) throw err;
      }
    }
  }

  /** A change another instance made: that row, re-read. A failure leaves it to the periodic reload. */
  async apply(change: TenantChange): Promise<void> {
    if (change.from === this.instanceId || this.stopped) return;
    try {
      const { sql, repos } = this.attached();
      if (change.kind === "project") {
        const p = await this.rows.project(change.id);
        if (p) this.mirrorWith(identity.project(p.id), () => sql.project(p));
      } else if (change.kind === "key") {
        const k = await this.rows.key(change.id);
        if (k && !(await this.ensureProject(k.projectId))) return;
        this.mirrorWith(identity.key(change.id), () => (k ? sql.key(k) : sql.dropKey(change.id)));
      } else {
        const k = await this.rows.providerKey(change.project, change.id);
        if (k && !(await this.ensureProject(k.projectId))) return;
        this.mirrorWith(identity.providerKey(change.project, change.id), () => (k ? repos.providerKeys.put(k) : repos.providerKeys.delete(change.project, change.id)));
      }
    } catch (err) {
      this.onError(err, "tenant change not applied: the next reload will");
      // The next tick reloads rather than the period's end.
      this.reloadedAt = -RELOAD_MS;
    }
  }

  /** A row's project, mirrored first when it is not yet (the foreign key wants it); false when
   * PostgreSQL has none either. */
  private async ensureProject(projectId: string, fresh = false): Promise<boolean> {
    if (!fresh && this.attached().repos.projects.get(projectId)) return true;
    const p = await this.rows.project(projectId);
    if (p) this.mirrorWith(identity.project(p.id), () => this.attached().sql.project(p), fresh);
    return p !== null;
  }

  /** At start, before anything is served: one transaction. Only rows that differ are written. */
  private replace(s: TenantSnapshot): void {
    const changed = this.attached().sql.sync(s);
    this.applied = { digest: s.digest, version: this.version };
    if (changed > 0) this.changedRows();
  }

  private changedRows(): void {
    this.unknown.clear();
    this.changed();
  }

  /** One row (`id`: its identity in tenant-mirror-sql.ts) mirrored as PostgreSQL holds it now.
   * `notify` false: a row only added (a key or project new here), which nothing cached can hold. */
  private mirrorWith(id: string, change: () => unknown, notify = true): void {
    change();
    this.touched?.add(id);
    this.version++;
    if (notify) this.changedRows();
  }

  private attached() {
    if (!this.db || !this.sql || !this.repos) throw new Error("tenant mirror used before buildDeps attached it");
    return { db: this.db, sql: this.sql, repos: this.repos };
  }
}
