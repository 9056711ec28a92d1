// The leader across real gw processes (docs/scale-out.md "Leader"): of two instances on one
// PostgreSQL exactly one logs that it leads and runs the jobs (today's partitions and two days
// ahead); killed, the other takes over on its next round; stopped, the new leader says so.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { partitionName } from "../../src/store/postgres/partitions.ts";
import { startMultiGw, type GwInstance, type MultiGw } from "../helpers/multi-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";

let m: MultiGw;
beforeAll(async () => {
  m = await startMultiGw(2);
}, 180_000);
afterAll(() => m?.stop());

const DAY = 86_400_000;
const LEADS = "this instance is now the leader: it runs the periodic jobs";
const FOLLOWS = "this instance is no longer the leader";

/** The instance's log lines with one of the two leadership messages, in order. */
function leadership(i: GwInstance): string[] {
  const out: string[] = [];
  for (const line of i.output().split("\n")) {
    if (!line.startsWith("{")) continue;
    const msg: unknown = JSON.parse(line).msg;
    if (msg === LEADS || msg === FOLLOWS) out.push(msg);
  }
  return out;
}

test("two instances: one leads and makes the partitions ahead; killed, the other takes over; stopped, it says so", async () => {
  const [first, second] = m.instances as [GwInstance, GwInstance];
  // The first started alone, so it took the lock; the second's rounds find it taken.
  await waitFor(() => leadership(first).length === 1, { what: "the first instance to lead", timeoutMs: 30_000 });
  expect(leadership(first)).toEqual([LEADS]);
  const sql = new SQL(m.pg.url);
  try {
    const now = Date.now();
    const wanted = [0, 1, 2].map((d) => partitionName("requests", now + d * DAY));
    const made = async () => {
      const rows: Array<{ name: string }> = await sql`SELECT relname AS name FROM pg_class WHERE relname = ANY(${sql.array(wanted, "TEXT")})`;
      return rows.length;
    };
    await waitFor(async () => (await made()) === 3, { what: "the leader's partitions", timeoutMs: 30_000 });
    // The store's own jobs and those the layers above register (alerts, webhooks, rollups, ...): all
    // run by the one leader.
    await waitFor(async () => (await sql`SELECT name FROM leader_jobs`).length >= 5, { what: "the leader's jobs", timeoutMs: 30_000 });
    const jobs: Array<{ name: string; holder: string }> = await sql`SELECT name, holder FROM leader_jobs`;
    expect(jobs.map((j) => j.name)).toEqual(expect.arrayContaining(["partitions", "stale holds", "expired rows", "rollup pruning", "retention"]));
    expect(new Set(jobs.map((j) => j.holder)).size).toBe(1);
    expect(leadership(second)).toEqual([]);
    for (const i of [first, second]) expect(i.output()).not.toContain("leader round failed");

    // A crash: the leader's session ends with its process and the lock with it.
    await first.kill();
    await waitFor(() => leadership(second).length === 1, { what: "the second instance to take over", timeoutMs: 30_000 });
    expect(leadership(second)).toEqual([LEADS]);
    expect(await second.stop()).toBe(0);
    expect(leadership(second)).toEqual([LEADS, FOLLOWS]);
    const [lock] = await sql`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid::bigint = ${0x67770002}`;
    expect(lock?.n).toBe(0);
  } finally {
    await sql.close();
  }
}, 120_000);
