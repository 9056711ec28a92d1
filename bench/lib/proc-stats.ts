// Reads a process's CPU time and resident memory from /proc (Linux), and counts request-log rows in
// gw's SQLite file through a read-only connection (WAL lets it read while gw writes).
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const CLK_TCK = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;

/** User + system CPU seconds of all the process's threads so far. */
export function cpuSeconds(pid: number): number {
  return ticksOf(readFileSync(`/proc/${pid}/stat`, "utf8")) / CLK_TCK;
}

/** CPU seconds of the process's main thread (the one whose thread id is the pid: gw's request
 * thread), beside the process total. */
export function mainThreadCpuSeconds(pid: number): number {
  return ticksOf(readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8")) / CLK_TCK;
}

/** utime + stime: after "pid (comm) ", state is field 3, utime field 14, stime field 15. */
function ticksOf(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/** Resident set size in MiB. */
export function rssMiB(pid: number): number {
  const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/);
  return m ? Number(m[1]) / 1024 : NaN;
}

export class RowCounter {
  private readonly db: Database;
  private readonly projects: string[];
  private readonly exact;
  private readonly since;
  private readonly lastId = new Map<string, string>();
  private total = 0;
  /** Epoch ms at which the newest request seen in the log completed (created_at + latency_ms). */
  newestDoneAt = 0;

  constructor(dataDir: string) {
    this.db = new Database(join(dataDir, "gw.sqlite"), { readonly: true });
    this.projects = this.db.query<{ id: string }, []>("SELECT id FROM projects").all().map((p) => p.id);
    this.exact = this.db.query<{ n: number }, []>("SELECT count(*) AS n FROM requests");
    // Ids sort by time and the table is keyed by (project_id, id): rows newer than the last seen
    // id are one primary-key range, so a poll reads only what was written since the last one.
    this.since = this.db.query<{ n: number; last: string | null; done: number | null }, [string, string]>(
      "SELECT count(*) AS n, max(id) AS last, max(created_at + latency_ms) AS done FROM requests WHERE project_id = ? AND id > ?",
    );
  }

  /** Counts the rows written since the last poll; returns the total seen so far. Cheap but may
   * miss a row that lands below the newest id already seen (see count() for the exact figure). */
  poll(): number {
    for (const project of this.projects) {
      const row = this.since.get(project, this.lastId.get(project) ?? "");
      if (!row || row.n === 0) continue;
      this.total += row.n;
      if (row.last !== null) this.lastId.set(project, row.last);
      if (row.done !== null) this.newestDoneAt = Math.max(this.newestDoneAt, row.done);
    }
    return this.total;
  }

  rows(): number {
    return this.poll();
  }

  count(): number {
    return this.exact.get()?.n ?? 0;
  }

  close(): void {
    this.db.close();
  }
}
