// One leader among the instances (docs/scale-out.md "Leader"): a session advisory lock on a dedicated
// connection, tried on an interval; the holder runs the registered jobs, each in a transaction on that
// same session, so a leader whose connection died can commit nothing and another takes over.
import { SQL, type TransactionSQL } from "bun";
import { bounded, type Postgres } from "./connect.ts";

/** pg_advisory_lock key of the leader ("gw" and 2 in its bytes; the migration runner's is 1). */
export const LEADER_LOCK = 0x67770002;

export interface LeaderJob {
  name: string;
  everyMs: number;
  /** Writes through `tx` commit only while this instance holds the lock; a throw rolls them back. */
  run(tx: TransactionSQL, now: number): Promise<void>;
}

export interface LeaderOptions {
  /** Shown in leader_jobs.holder. */
  instance: string;
  /** How often the lock is tried (and held, checked), default 5 s. */
  intervalMs?: number;
  now?: () => number;
  /** A failed check or job; the next tick tries again. */
  onError?: (err: unknown) => void;
  /** After a round (or stop) in which this instance became, or stopped being, the leader. */
  onChange?: (leading: boolean) => void;
  /** Bound of the lock's check (default 2 s). */
  timeoutMs?: number;
  /** Server-side bound of each statement on the leader's session, jobs' included (default 60 s). */
  statementTimeoutMs?: number;
  lockKey?: number;
}

export class Leader {
  private readonly pg: Postgres;
  private readonly jobs: LeaderJob[] = [];
  private readonly now: () => number;
  private readonly lockKey: number;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<boolean> | null = null;
  private stopped = false;
  private leading = false;
  private reported = false;

  constructor(url: string, private readonly options: LeaderOptions) {
    const timeoutMs = options.timeoutMs ?? 2_000;
    // One connection of its own: the lock lives and dies with this session.
    const sql = new SQL({ url, max: 1, idleTimeout: 0, maxLifetime: 0, connectionTimeout: Math.max(1, Math.ceil(timeoutMs / 1000)), connection: { application_name: `gw-leader ${options.instance}`, statement_timeout: options.statementTimeoutMs ?? 60_000 } });
    this.pg = { sql, timeoutMs, close: () => sql.close({ timeout: 1 }) };
    this.now = options.now ?? Date.now;
    this.lockKey = options.lockKey ?? LEADER_LOCK;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  register(job: LeaderJob): void {
    this.jobs.push(job);
  }

  /** One round: keeps or takes the lock, then (holding it) runs the jobs that are due. Rounds never overlap. */
  tick(): Promise<boolean> {
    this.running ??= this.round().finally(() => {
      this.running = null;
      this.report();
    });
    return this.running;
  }

  start(): void {
    const loop = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => void this.tick().finally(loop), this.options.intervalMs ?? 5_000);
    };
    void this.tick().finally(loop);
  }

  /** Ends the loop, lets a running round finish, releases the lock and closes the connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    if (this.leading) await this.pg.sql`SELECT pg_advisory_unlock(${this.lockKey})`.catch(() => undefined);
    this.leading = false;
    this.report();
    await this.pg.close();
  }

  private report(): void {
    if (this.leading === this.reported) return;
    this.reported = this.leading;
    this.options.onChange?.(this.leading);
  }

  private async round(): Promise<boolean> {
    if (this.stopped) return false;
    try {
      this.leading = await bounded(this.pg, "leader lock", () => this.holdOrTake());
    } catch (err) {
      this.leading = false;
      this.options.onError?.(err);
      return false;
    }
    for (const job of this.leading ? this.jobs : []) {
      try {
        await this.runDue(job);
      } catch (err) {
        this.options.onError?.(err);
        // A dropped session takes the lock with it: ask again rather than keep claiming to lead.
        this.leading = await bounded(this.pg, "leader lock", () => this.holds(this.pg.sql)).catch(() => false);
        if (!this.leading) break;
      }
    }
    return this.leading;
  }

  /** Whether this session holds the lock, taking it when free. A session that reconnected under
   * the pool has lost it, so the lock table is asked rather than our own memory. */
  private async holdOrTake(): Promise<boolean> {
    // A check on a dropped session fails: that is a lost lock, and the try below reconnects (or reports the outage).
    if (this.leading && (await this.holds(this.pg.sql).catch(() => false))) return true;
    const [row] = await this.pg.sql`SELECT pg_try_advisory_lock(${this.lockKey}) AS ok`;
    return row?.ok === true;
  }

  private async holds(q: SQL | TransactionSQL): Promise<boolean> {
    const [row] = await q`SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted
      AND pid = pg_backend_pid() AND classid = 0 AND objid::bigint = ${this.lockKey} AND objsubid = 1) AS held`;
    return row?.held === true;
  }

  /** The job in one transaction on the lock's session, when its last run (any leader's) is old enough. */
  private async runDue(job: LeaderJob): Promise<void> {
    const now = this.now();
    await this.pg.sql.begin(async (tx) => {
      // The fence: a session that is not the holder (reconnected, lock gone) writes nothing.
      if (!(await this.holds(tx))) {
        this.leading = false;
        return;
      }
      await tx`INSERT INTO leader_jobs (name, last_run_at, runs, holder) VALUES (${job.name}, ${-job.everyMs}, 0, ${this.options.instance})
        ON CONFLICT (name) DO NOTHING`;
      const [row] = await tx`SELECT last_run_at FROM leader_jobs WHERE name = ${job.name} FOR UPDATE`;
      if (now - Number(row?.last_run_at ?? 0) < job.everyMs) return;
      await job.run(tx, now);
      await tx`UPDATE leader_jobs SET last_run_at = ${now}, runs = runs + 1, holder = ${this.options.instance} WHERE name = ${job.name}`;
    });
  }
}
