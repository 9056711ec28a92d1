// The PostgreSQL pool (docs/scale-out.md "PostgreSQL"): every call bounded by a time-out, on the
// server (statement_timeout) and here; an unreachable or stuck server is a typed StoreUnavailable.
import { SQL } from "bun";

export interface PostgresOptions {
  /** Pool size per instance (default 10). */
  max?: number;
  /** Bound of one call, connecting included (default 2 s). */
  timeoutMs?: number;
}

/** PostgreSQL cannot be reached in time, or dropped the connection: the caller answers 503 and
 * nothing was acknowledged. Other errors (a constraint, a bug) are not this. */
export class StoreUnavailable extends Error {
  override readonly name = "StoreUnavailable";
  constructor(what: string, readonly reason: string) {
    super(`PostgreSQL unavailable (${what}): ${reason}`);
  }
}

export interface Postgres {
  sql: SQL;
  timeoutMs: number;
  close(): Promise<void>;
}

export function openPostgres(url: string, options: PostgresOptions = {}): Postgres {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const sql = new SQL({
    url, max: options.max ?? 10,
    connectionTimeout: Math.max(1, Math.ceil(timeoutMs / 1000)),
    // Server-side bounds: a statement or a lock wait past the call's bound is cancelled there too.
    connection: { statement_timeout: timeoutMs, lock_timeout: timeoutMs, application_name: "gw" },
  });
  return { sql, timeoutMs, close: () => sql.close({ timeout: 1 }) };
}

/** SQLSTATE classes of an unreachable server: connection (08), resources (53), operator
 * intervention (57: shutdown, statement time-out); Bun's own connection and time-out errors. */
function unavailableReason(err: unknown): string | null {
  if (!(err instanceof SQL.PostgresError)) return null;
  if (/CONNECTION|TIMEOUT|CLOSED/.test(err.code) || /^(08|53|57)/.test(err.errno ?? "")) return err.message;
  return null;
}

/** Runs `op` within the pool's bound: a time-out or a connection failure becomes StoreUnavailable. */
export async function bounded<T>(pg: Postgres, what: string, op: () => Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailable(what, `no answer within ${pg.timeoutMs} ms`)), pg.timeoutMs);
  });
  try {
    return await Promise.race([op(), late]);
  } catch (err) {
    const reason = unavailableReason(err);
    throw reason === null ? err : new StoreUnavailable(what, reason);
  } finally {
    clearTimeout(timer);
  }
}
