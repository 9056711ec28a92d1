// The multi-instance mode's shared state (docs/scale-out.md): one PostgreSQL pool and one Redis
// client per instance, the migrations applied under their advisory lock, and the stores built on
// them. Opened before buildDeps (it is asynchronous); single-node gw never loads any of it.
import { RedisClient } from "bun";
import { limitHeaders } from "./billing/rate-limit-headers.ts";
import type { Config } from "./config/env.ts";
import { sortableId } from "./lib/ids.ts";
import type { Clock } from "./lib/clock.ts";
import type { Logger } from "./observability/logger.ts";
import { openPostgres } from "./store/postgres/connect.ts";
import { migratePostgres } from "./store/postgres/migrate.ts";
import { postgresMoneyStore } from "./store/postgres/money.ts";
import { postgresLogStore } from "./store/postgres/request-log.ts";
import { postgresTenantRows, postgresTenantStores, type TenantSnapshot } from "./store/postgres/tenant.ts";
import { redisTenantBus } from "./store/redis/bus.ts";
import { TenantMirror } from "./store/tenant-mirror.ts";
import { redisStores } from "./store/redis/stores.ts";
import type { SharedState } from "./store/shared.ts";

export interface SharedStateOptions {
  clock: Clock;
  logger: Logger;
}

const redisClient = (url: string) =>
  new RedisClient(url, { autoReconnect: true, enableOfflineQueue: false, connectionTimeout: 2_000, maxRetries: 4_294_967_295 });

/** Connects, migrates and builds the stores; throws (start-up stops, naming the server) when
 * PostgreSQL or Redis cannot be used. */
export async function openSharedState(config: Config, options: SharedStateOptions): Promise<SharedState> {
  if (!config.databaseUrl || !config.redisUrl) throw new Error("the multi-instance mode needs GW_DATABASE_URL and GW_REDIS_URL");
  const { logger, clock } = options;
  const pg = openPostgres(config.databaseUrl);
  const redis = redisClient(config.redisUrl);
  const redisSubscriber = redisClient(config.redisUrl);
  const redisStream = redisClient(config.redisUrl);
  const tenantRows = postgresTenantRows(pg);
  let tenants: TenantSnapshot;
  try {
    const applied = await migratePostgres(pg.sql);
    for (const version of applied) logger.info({ migration: version }, "PostgreSQL migrated");
    await Promise.all([redis.connect(), redisSubscriber.connect(), redisStream.connect()]);
    // The tenant mirror's first load (docs/scale-out.md): applied by buildDeps.
    tenants = await tenantRows.snapshot();
  } catch (err) {
    redis.close();
    redisSubscriber.close();
    redisStream.close();
    await pg.close();
    throw new Error(`multi-instance start-up failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  const now = () => clock.now();
  const instanceId = `gw_${sortableId()}`;
  const tenantStores = postgresTenantStores(pg);
  return {
    instanceId,
    pg, redis, redisSubscriber, redisStream,
    tenants: tenantStores,
    mirror: new TenantMirror(instanceId, tenantStores, tenantRows, redisTenantBus(redis, redisSubscriber), tenants, (err, context) => logger.error({ err }, context)),
    money: postgresMoneyStore(pg),
    // A carried charge the ledger cut or found settled: the ledger's amount stands, the trace shows the amount asked.
    logs: postgresLogStore(pg, {
      onSettleDiffers: (odd) => logger.warn({ settles: odd }, "carried charges cut or settled before"),
      traces: {
        onError: (err, traces) => logger.error({ err, traces }, "trace batch not written; will retry"),
        onDrop: (dropped) => logger.error({ dropped }, "trace queue at its bound: a trace was dropped (its row is stored)"),
      },
    }),
    fast: redisStores(redis, { limitHeaders, now, onError: (err, context) => logger.error({ err }, context) }),
    leaderJobs: [],
    close: async () => {
      redis.close();
      redisSubscriber.close();
      redisStream.close();
      await pg.close();
    },
  };
}
