// The multi-instance mode's shared state (docs/scale-out.md): what src/shared-state.ts opens before
// buildDeps and hands to the pipeline as deps.shared (null in single-node mode).
import type { RedisClient } from "bun";
import type { RequestLogStore } from "./log-store.ts";
import type { Postgres } from "./postgres/connect.ts";
import type { LeaderJob } from "./postgres/leader.ts";
import type { PostgresMoneyStore } from "./postgres/money.ts";
import type { RedisStores } from "./redis/stores.ts";
import type { TenantMirror } from "./tenant-mirror.ts";
import type { TenantStores } from "./tenant-store.ts";

export interface SharedState {
  /** This process among the instances: names its leader claims, heartbeats and log lines. */
  instanceId: string;
  pg: Postgres;
  /** Commands: bounded, failing at once while Redis is down (no offline queue). */
  redis: RedisClient;
  /** A second connection for SUBSCRIBE (a subscribed connection takes no other command). */
  redisSubscriber: RedisClient;
  /** A third connection for the semantic stream's blocking XREAD (src/store/redis/semantic-stream.ts). */
  redisStream: RedisClient;
  tenants: TenantStores;
  /** This instance's SQLite tenant tables as PostgreSQL's mirror: attached by buildDeps. */
  mirror: TenantMirror;
  money: PostgresMoneyStore;
  logs: RequestLogStore;
  fast: RedisStores;
  /** Periodic jobs of the layers above, pushed by buildDeps; the leader runs them with its own. */
  leaderJobs: LeaderJob[];
  /** Closes both connections; the services using them are stopped before (src/services.ts). */
  close(): Promise<void>;
}
