// Security events in the multi-instance mode (docs/webhooks.md "Event types"): each instance still
// counts in memory, then adds an ended window's tally to Redis; the leader sends every window once
// all instances have had time to add theirs. Failed authentications are counted on Redis at once.
import type { RedisClient } from "bun";
import { redisCall } from "../../store/redis/redis-call.ts";
import type { LeaderJob } from "../../store/postgres/leader.ts";
import type { EmitEvent } from "../webhooks/emitter.ts";
import { isWebhookEventType } from "../webhooks/event.ts";
import { iso, WINDOW_MS } from "./thresholds.ts";

export interface WindowTally {
  type: "security.ip_blocked" | "security.pii_blocked" | "security.secret_detected";
  projectId: string;
  start: number;
  count: number;
  requestIds: string[];
  /** Kinds found, or key ids for ip_blocked. */
  names: string[];
}

/** Every instance adds an ended window within its 15 s tick; the leader waits this long past the end. */
export const SHARED_WINDOW_GRACE_MS = 45_000;
const KEEP_MS = 86_400_000;
const TIMEOUT_MS = 1_000;
const MAX_REQUEST_IDS = 100;
const MAX_NAMES = 20;

export class SharedSecurityWindows {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly redis: RedisClient,
    private readonly onError: (err: unknown, what: string) => void,
    private readonly prefix = "gw:sec:",
  ) {}

  private keys(member: string) {
    return { count: `${this.prefix}n:${member}`, ids: `${this.prefix}ids:${member}`, names: `${this.prefix}names:${member}`, pending: `${this.prefix}pending` };
  }

  private call(command: string, args: string[]): Promise<unknown> {
    return redisCall(this.redis, command, args, TIMEOUT_MS);
  }

  /** Adds an ended window's tally (not awaited by the caller; idle() waits for it at a stop). */
  add(t: WindowTally): void {
    const member = `${t.type}|${t.projectId}|${t.start}`;
    const k = this.keys(member);
    const ttl = String(KEEP_MS);
    const p = (async () => {
      await this.call("INCRBY", [k.count, String(t.count)]);
      if (t.requestIds.length > 0) await this.call("RPUSH", [k.ids, ...t.requestIds]);
      await this.call("LTRIM", [k.ids, "0", String(MAX_REQUEST_IDS - 1)]);
      if (t.names.length > 0) await this.call("SADD", [k.names, ...t.names]);
      for (const key of [k.count, k.ids, k.names]) await this.call("PEXPIRE", [key, ttl]);
      await this.call("SADD", [k.pending, member]);
    })().catch((err) => this.onError(err, "security window not added to Redis: its counts are lost"));
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Failed authentications of a project in the window starting at `start`, every instance's. */
  async failures(projectId: string, start: number): Promise<number> {
    const key = `${this.prefix}auth:${projectId}|${start}`;
    const n = Number(await this.call("INCR", [key]));
    if (n === 1) await this.call("PEXPIRE", [key, String(WINDOW_MS * 2)]);
    return n;
  }

  /** Sends every window ended SHARED_WINDOW_GRACE_MS ago; returns how many. */
  async sendDue(now: number, emit: EmitEvent): Promise<number> {
    const pending = this.keys("").pending;
    const members = await this.call("SMEMBERS", [pending]);
    let sent = 0;
    for (const member of Array.isArray(members) ? members.map(String) : []) {
      const [type, projectId, startText] = member.split("|");
      const start = Number(startText);
      if (!isWebhookEventType(type) || !projectId || !Number.isFinite(start) || start + WINDOW_MS + SHARED_WINDOW_GRACE_MS > now) continue;
      const k = this.keys(member);
      const count = Number(await this.call("GET", [k.count]) ?? 0);
      const ids = await this.call("LRANGE", [k.ids, "0", String(MAX_REQUEST_IDS - 1)]);
      const names = await this.call("SMEMBERS", [k.names]);
      const data: Record<string, unknown> = {
        window_start: iso(start), window_end: iso(start + WINDOW_MS), count, request_ids: Array.isArray(ids) ? ids.map(String) : [],
      };
      const list = (Array.isArray(names) ? names.map(String) : []).sort().slice(0, MAX_NAMES);
      if (type === "security.ip_blocked") data.key_ids = list;
      else data.kinds = list;
      // The natural key is the window: a second leader sending it again stores nothing.
      if (count > 0) emit({ projectId, type, key: iso(start), data });
      await this.call("DEL", [k.count, k.ids, k.names]);
      await this.call("SREM", [pending, member]);
      sent++;
    }
    return sent;
  }

  job(emit: EmitEvent, everyMs = 15_000): LeaderJob {
    return { name: "security windows", everyMs, run: async (_tx, now) => void (await this.sendDue(now, emit)) };
  }
}
