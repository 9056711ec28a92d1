// One multi-instance gw in this process (docs/scale-out.md): openSharedState on the file's PostgreSQL
// and Redis, then startServer, as `gw serve` does; several make in-process "instances" whose deps a
// test can read. test/helpers/multi-gw.ts starts real processes instead.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/env.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { startServer, type RunningServer } from "../../src/server.ts";
import { openSharedState } from "../../src/shared-state.ts";
import type { SharedState } from "../../src/store/shared.ts";
import type { Service } from "./services.ts";
import { ADMIN_TOKEN } from "./test-gw.ts";

export interface SharedInstance {
  server: RunningServer;
  shared: SharedState;
  /** http://127.0.0.1:PORT (no path). */
  origin: string;
  dir: string;
  /** Stops the server, closes the connections (once) and removes the data directory. */
  stop(): Promise<void>;
}

/** `env` adds to (or overrides) the instance's environment: upstreams, limits. */
export async function startSharedInstance(pg: Service, redis: Service, env: Record<string, string> = {}): Promise<SharedInstance> {
  const dir = mkdtempSync(join(tmpdir(), "gw-shared-"));
  const config = loadConfig({ port: "0", data: join(dir, "data") }, {
    GW_ADMIN_TOKEN: ADMIN_TOKEN, GW_DATABASE_URL: pg.url, GW_REDIS_URL: redis.url, GW_SECRET_KEY: "shared-test-secret-key-0123456789abcdef0123456789",
    GW_SEMANTIC_EMBEDDER: "off", GW_STORAGE_RESERVE_MB: "1", ...env,
  });
  const logger = createLogger(process.env.GW_TEST_LOG_LEVEL ?? "silent");
  const shared = await openSharedState(config, { clock: systemClock, logger });
  const server = startServer(config, { shared, logger, quiet: true });
  let stopped: Promise<void> | null = null;
  return {
    server, shared, dir, origin: server.url.replace(/\/v1$/, ""),
    stop: () => (stopped ??= (async () => {
      await server.stop();
      await shared.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    })()),
  };
}

/** A /v1/admin call on `instance` with the tests' admin token. */
export const sharedAdmin = (instance: SharedInstance, method: string, path: string, body?: unknown): Promise<Response> =>
  fetch(`${instance.server.url}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** A dashboard sign-in on `instance` with `token`: the answer, its session cookie and CSRF token
 * (the caller checks the status). */
export async function dashboardSignIn(instance: SharedInstance, token: string): Promise<{ res: Response; cookie: string; csrf: string }> {
  const res = await fetch(`${instance.origin}/dashboard/api/session`, { method: "POST", body: JSON.stringify({ token }) });
  const body = (await res.clone().json().catch(() => ({}))) as { csrf_token?: string };
  return { res, cookie: (res.headers.get("set-cookie") ?? "").split(";")[0]!, csrf: body.csrf_token ?? "" };
}
