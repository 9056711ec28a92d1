// Day partitions of the request log and traces (docs/scale-out.md "PostgreSQL"): the leader makes
// today's and tomorrow's ahead of time and retention drops whole days, under one advisory lock.
import type { SQL, TransactionSQL } from "bun";

export const PARTITIONED = ["requests", "traces"] as const;
const DAY_MS = 86_400_000;
/** pg_advisory_xact_lock key of partition upkeep; not the leader's key (0x67770002), which one
 * session holds for good and would block every other instance's upkeep. */
const PARTITION_LOCK = 0x67770003;
const NAME = /^(requests|traces)_p(\d{4})(\d{2})(\d{2})$/;

/** "requests_p20261126" for the UTC day holding `ms`. */
export function partitionName(table: (typeof PARTITIONED)[number], ms: number): string {
  return `${table}_p${new Date(ms).toISOString().slice(0, 10).replaceAll("-", "")}`;
}

const dayStart = (ms: number): number => ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);

/** Creates the partitions of the days holding `now` and the `ahead` days after it (default 1), for
 * both tables; existing ones are left alone. Returns the names created. */
export function ensurePartitions(sql: SQL, now: number, ahead = 1): Promise<string[]> {
  return sql.begin((tx) => ensurePartitionsIn(tx, now, ahead));
}

/** ensurePartitions inside the caller's transaction (the leader's job, fenced by its lock). */
export async function ensurePartitionsIn(tx: TransactionSQL, now: number, ahead = 1): Promise<string[]> {
  await tx`SELECT pg_advisory_xact_lock(${PARTITION_LOCK})`;
  const created: string[] = [];
  for (let d = 0; d <= ahead; d++) {
    const from = dayStart(now) + d * DAY_MS;
    for (const table of PARTITIONED) {
      const name = partitionName(table, from);
      const [exists] = await tx`SELECT to_regclass(${name}) IS NOT NULL AS e`;
      if (exists?.e) continue;
      // Names and bounds are made here from numbers, never from input.
      await tx.unsafe(`CREATE TABLE ${name} PARTITION OF ${table} FOR VALUES FROM (${from}) TO (${from + DAY_MS})`);
      created.push(name);
    }
  }
  return created;
}

/** Drops the day partitions that end at or before `before` (retention), first taking their trace
 * bytes off trace_usage. Returns the names dropped. */
export function dropPartitionsBefore(sql: SQL, before: number): Promise<string[]> {
  return sql.begin((tx) => dropPartitionsBeforeIn(tx, before));
}

/** dropPartitionsBefore inside the caller's transaction. */
export async function dropPartitionsBeforeIn(tx: TransactionSQL, before: number): Promise<string[]> {
  await tx`SELECT pg_advisory_xact_lock(${PARTITION_LOCK})`;
  const rows = await tx`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname IN ('requests', 'traces') ORDER BY c.relname`;
  const dropped: string[] = [];
  for (const { name } of rows as Array<{ name: string }>) {
    const m = NAME.exec(name);
    if (!m) continue;
    const end = Date.UTC(Number(m[2]), Number(m[3]) - 1, Number(m[4])) + DAY_MS;
    if (end > before) continue;
    if (m[1] === "traces") {
      await tx.unsafe(`UPDATE trace_usage u SET bytes = greatest(0, u.bytes - s.bytes)
        FROM (SELECT project_id, sum(octet_length(data))::bigint AS bytes FROM ${name} GROUP BY project_id) s
        WHERE u.project_id = s.project_id`);
    }
    await tx.unsafe(`DROP TABLE ${name}`);
    dropped.push(name);
  }
  return dropped;
}
