// The leader (src/store/postgres/leader.ts) on a real throwaway cluster: three contenders, exactly
// one leader at a time, failover when the leader's connection is closed, and each job run once per
// due time by the lock holder only (leader_jobs' counter and a probe row per run prove it).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TransactionSQL } from "bun";
import { openPostgres, type Postgres } from "../../../src/store/postgres/connect.ts";
import { Leader, type LeaderJob } from "../../../src/store/postgres/leader.ts";
import { migratePostgres } from "../../../src/store/postgres/migrate.ts";
import { type PostgresService, startPostgres } from "../../helpers/services.ts";
import { waitFor } from "../../helpers/wait-for.ts";

let service: PostgresService;
let pg: Postgres;
beforeAll(async () => {
  service = await startPostgres();
  pg = openPostgres(service.url, { max: 4, timeoutMs: 10_000 });
  await migratePostgres(pg.sql);
  await pg.sql`CREATE TABLE leader_probe (job TEXT NOT NULL, slot BIGINT NOT NULL, instance TEXT NOT NULL, pid INT NOT NULL, holder INT, UNIQUE (job, slot))`;
});
afterAll(async () => {
  await pg?.close();
  await service?.stop();
});

const EVERY = 60_000;
let lockKeys = 0x6777_1000;

/** Three contenders on one lock, sharing an injected clock; the job records each run in the probe table. */
function contenders(job: string, clock: { now: number }, intervalMs = 5_000) {
  const lockKey = ++lockKeys;
  const errors: unknown[] = [];
  const state = { running: 0, most: 0, runs: [0, 0, 0] };
  const leaders = [0, 1, 2].map((i) => {
    const leader = new Leader(service.url, { instance: `gw-${i}`, intervalMs, now: () => clock.now, lockKey, timeoutMs: 10_000, onError: (e) => errors.push(e) });
    const probe: LeaderJob = {
      name: job,
      everyMs: EVERY,
      async run(tx: TransactionSQL, now: number) {
        state.running += 1;
        state.most = Math.max(state.most, state.running);
        try {
          // The holder's pid as the lock table shows it, beside the pid that wrote the row.
          await tx`INSERT INTO leader_probe (job, slot, instance, pid, holder) VALUES (${job}, ${Math.floor(now / EVERY)}, ${`gw-${i}`}, pg_backend_pid(),
            (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid::bigint = ${lockKey}))`;
          state.runs[i]! += 1;
        } finally {
          state.running -= 1;
        }
      },
    };
    leader.register(probe);
    return leader;
  });
  const holder = async (): Promise<number | null> => {
    const rows = await pg.sql`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid::bigint = ${lockKey}`;
    return rows.length === 1 ? Number(rows[0].pid) : rows.length === 0 ? null : -rows.length;
  };
  return { leaders, errors, state, holder, lockKey };
}

async function probeRows(job: string) {
  const rows: Array<{ slot: string; instance: string; pid: number; holder: number | null }> =
    await pg.sql`SELECT slot::text, instance, pid, holder FROM leader_probe WHERE job = ${job} ORDER BY slot`;
  const [count] = await pg.sql`SELECT runs::int AS runs FROM leader_jobs WHERE name = ${job}`;
  return { rows, runs: Number(count?.runs ?? 0) };
}

describe("postgres leader", () => {
  test("three contenders: exactly one leads each round; after its connection is closed another takes over; each due run happens once, by the holder", async () => {
    const clock = { now: Date.UTC(2026, 10, 26, 12) };
    const { leaders, errors, state, holder } = contenders("probe-a", clock);
    try {
      for (let round = 0; round < 4; round++) {
        const leading = await Promise.all(leaders.map((l) => l.tick()));
        expect(leading.filter(Boolean)).toHaveLength(1);
        expect(await holder()).toBeGreaterThan(0);
        // A second round at the same time: still one leader, and the job is not due again.
        expect((await Promise.all(leaders.map((l) => l.tick()))).filter(Boolean)).toHaveLength(1);
        clock.now += EVERY;
      }
      const first = leaders.findIndex((l) => l.isLeader);
      expect(state.runs[first]).toBe(4);

      // The leader's session dies (its process is gone: it ticks no more); the lock goes with it.
      const pid = await holder();
      await pg.sql`SELECT pg_terminate_backend(${pid})`;
      await waitFor(async () => (await holder()) === null, { what: "the dead leader's lock to go" });
      const others = leaders.filter((_, i) => i !== first);
      for (let round = 0; round < 3; round++) {
        expect((await Promise.all(others.map((l) => l.tick()))).filter(Boolean)).toHaveLength(1);
        clock.now += EVERY;
      }
      const second = leaders.findIndex((l, i) => i !== first && l.isLeader);
      expect(second).toBeGreaterThanOrEqual(0);
      expect(state.runs[second]).toBe(3);

      // The old one comes back (its pool reconnects): its new session holds nothing, so it follows.
      expect((await Promise.all(leaders.map((l) => l.tick()))).filter(Boolean)).toHaveLength(1);
      expect(leaders[first]!.isLeader).toBe(false);
      expect(leaders[second]!.isLeader).toBe(true);

      const { rows, runs } = await probeRows("probe-a");
      expect(runs).toBe(8);
      expect(rows).toHaveLength(8);
      expect(rows.every((r) => r.pid === r.holder)).toBe(true);
      expect(rows.map((r) => r.instance)).toEqual([...Array(4).fill(`gw-${first}`), ...Array(4).fill(`gw-${second}`)]);
      expect(state.most).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await Promise.all(leaders.map((l) => l.stop()));
    }
  });

  test("a job whose session is closed mid-run commits nothing; the next holder runs that due time", async () => {
    const clock = { now: Date.UTC(2026, 10, 27, 12) };
    const { leaders, errors, holder } = contenders("probe-b", clock);
    const kill = { armed: false };
    // Registered on all three: once armed, the run loses its session after writing its row.
    leaders.forEach((leader, i) => leader.register({
      name: "probe-b-flaky",
      everyMs: EVERY,
      async run(tx: TransactionSQL, now: number) {
        await tx`INSERT INTO leader_probe (job, slot, instance, pid, holder) VALUES ('probe-b-flaky', ${Math.floor(now / EVERY)}, ${`gw-${i}`}, pg_backend_pid(), pg_backend_pid())`;
        if (!kill.armed) return;
        kill.armed = false;
        const [me] = await tx`SELECT pg_backend_pid() AS pid`;
        await pg.sql`SELECT pg_terminate_backend(${me?.pid})`;
        await tx`SELECT 1`;
      },
    }));
    try {
      expect(await leaders[0]!.tick()).toBe(true);
      clock.now += EVERY;
      kill.armed = true;
      await leaders[0]!.tick();
      expect(errors).toHaveLength(1);
      await waitFor(async () => (await holder()) === null, { what: "the killed session's lock to go" });

      expect((await Promise.all(leaders.slice(1).map((l) => l.tick()))).filter(Boolean)).toHaveLength(1);
      const next = leaders.findIndex((l) => l.isLeader);
      expect(next).toBeGreaterThan(0);
      const slot = Math.floor(clock.now / EVERY);
      const flaky = await probeRows("probe-b-flaky");
      // gw-0's run of this slot rolled back with its session; the new holder ran it, once.
      expect(flaky.rows.map((r) => [Number(r.slot), r.instance])).toEqual([[slot - 1, "gw-0"], [slot, `gw-${next}`]]);
      expect(flaky.runs).toBe(2);
      const probe = await probeRows("probe-b");
      expect(probe.rows.every((r) => r.pid === r.holder)).toBe(true);
      expect(probe.runs).toBe(probe.rows.length);
    } finally {
      await Promise.all(leaders.map((l) => l.stop()));
    }
  });

  test("started on an interval: one leader; stop() releases the lock and another takes over", async () => {
    const clock = { now: Date.UTC(2026, 10, 28, 12) };
    const { leaders, errors, holder } = contenders("probe-c", clock, 10);
    const stopped = new Set<number>();
    try {
      for (const l of leaders) l.start();
      await waitFor(() => leaders.some((l) => l.isLeader), { what: "a leader", timeoutMs: 10_000 });
      const first = leaders.findIndex((l) => l.isLeader);
      const firstPid = await holder();
      await leaders[first]!.stop();
      stopped.add(first);
      await waitFor(() => leaders.some((l, i) => i !== first && l.isLeader), { what: "a new leader", timeoutMs: 10_000 });
      const pid = await holder();
      expect(pid).toBeGreaterThan(0);
      expect(pid).not.toBe(firstPid);
      expect(leaders.filter((l) => l.isLeader)).toHaveLength(1);
      expect(errors).toEqual([]);
    } finally {
      await Promise.all(leaders.filter((_, i) => !stopped.has(i)).map((l) => l.stop()));
    }
    expect(await holder()).toBeNull();
  });
});
