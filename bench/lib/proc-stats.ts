// Reads a process's CPU time and resident memory from /proc (Linux), and counts request-log rows in
// gw's SQLite file through a read-only connection (WAL lets it read while gw writes).
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const CLK_TCK = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;

/** User + system CPU seconds of all the process's threads so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // After "pid (comm) ": state is field 3, utime field 14, stime field 15.
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

/** Resident set size in MiB. */
export function rssMiB(pid: number): number {
  const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/);
  return m ? Number(m[1]) / 1024 : NaN;
}

export class RowCounter {
  private readonly db: Database;
  private readonly fast;
  private readonly exact;
  private readonly since;
  private lastRowid = 0;
  /** Epoch ms at which the newest request seen in the log completed (created_at + latency_ms). */
  newestDoneAt = 0;

  constructor(dataDir: string) {
    this.db = new Database(join(dataDir, "gw.sqlite"), { readonly: true });
    // Rows are only ever inserted, so the largest rowid is the count, found in O(log n).
    this.fast = this.db.query<{ n: number | null }, []>("SELECT max(rowid) AS n FROM requests");
    this.exact = this.db.query<{ n: number }, []>("SELECT count(*) AS n FROM requests");
    this.since = this.db.query<{ r: number | null; done: number | null }, [number]>(
      "SELECT max(rowid) AS r, max(created_at + latency_ms) AS done FROM requests WHERE rowid > ?",
    );
  }

  /** Reads only the rows written since the last poll; returns the row count (= largest rowid). */
  poll(): number {
    const row = this.since.get(this.lastRowid);
    if (row?.r != null) this.lastRowid = row.r;
    if (row?.done != null) this.newestDoneAt = Math.max(this.newestDoneAt, row.done);
    return this.lastRowid;
  }

  rows(): number {
    return this.fast.get()?.n ?? 0;
  }

  count(): number {
    return this.exact.get()?.n ?? 0;
  }

  close(): void {
    this.db.close();
  }
}
