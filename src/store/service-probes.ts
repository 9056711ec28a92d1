// `gw doctor`'s checks of the shared-state servers (docs/scale-out.md "gw doctor"): one connection
// each, within a time-out; reachable with the server's version, or not with why, never a credential.
import { RedisClient, SQL } from "bun";

export interface ProbeResult {
  ok: boolean;
  detail: { reachable: boolean; target: string; server?: string; latency_ms?: number; error?: string };
}

/** host:port/path of a URL: what it names, never who connects. */
function targetOf(url: URL, defaultPort: number): string {
  return `${url.hostname}:${url.port || defaultPort}${url.pathname.length > 1 ? url.pathname : ""}`;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Runs `probe` within `timeoutMs`; a throw or the time-out is an unreachable result whose message
 * never holds the URL's password, encoded or not. `close` always runs. */
async function boundedProbe(url: URL, defaultPort: number, timeoutMs: number, probe: () => Promise<string>, close: () => unknown): Promise<ProbeResult> {
  const target = targetOf(url, defaultPort);
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const server = await Promise.race([probe(), timeout]);
    return { ok: true, detail: { reachable: true, target, server, latency_ms: Math.round(performance.now() - started) } };
  } catch (err) {
    let error = err instanceof Error ? err.message : String(err);
    for (const secret of [url.password, decoded(url.password), url.searchParams.get("password") ?? ""]) {
      if (secret) error = error.split(secret).join("***");
    }
    return { ok: false, detail: { reachable: false, target, error } };
  } finally {
    clearTimeout(timer);
    try {
      await close();
    } catch {
      // A client that never connected may refuse to close; there is nothing left to release.
    }
  }
}

/** Connects to a validated postgres:// URL and asks its version. */
export function probePostgres(urlText: string, timeoutMs: number): Promise<ProbeResult> {
  const sql = new SQL({ url: urlText, max: 1, connectionTimeout: Math.max(1, Math.ceil(timeoutMs / 1000)), idleTimeout: 1 });
  return boundedProbe(new URL(urlText), 5432, timeoutMs, async () => {
    const rows: Array<{ version: string }> = await sql`SELECT current_setting('server_version') AS version`;
    return `PostgreSQL ${rows[0]?.version ?? "(unknown version)"}`;
  }, () => sql.close({ timeout: 0 }));
}

/** Connects to a validated redis:// URL and reads its version from INFO. */
export function probeRedis(urlText: string, timeoutMs: number): Promise<ProbeResult> {
  // The command waits in the client's queue for the connection: so a refused password comes back as
  // the server's WRONGPASS, where connect() alone reports only a closed connection.
  const client = new RedisClient(urlText, { connectionTimeout: timeoutMs, autoReconnect: false });
  return boundedProbe(new URL(urlText), 6379, timeoutMs, async () => {
    const info: unknown = await client.send("INFO", ["server"]);
    const version = typeof info === "string" ? /^redis_version:(\S+)/m.exec(info)?.[1] : undefined;
    return `Redis ${version ?? "(unknown version)"}`;
  }, () => client.close());
}
