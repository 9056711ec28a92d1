// Workflow budget reservations shared by every instance (docs/routing.md "Workflow budgets",
// docs/scale-out.md): one hash per workflow, a field per attempt holding "amount expires" while it
// runs and "cost expires settledAt" once metered, each expiring on its own, so a dead instance's
// reservation frees itself. One script call reserves (checking the room atomically) or settles.
import type { RedisClient } from "bun";
import { REDIS_TIMEOUT_MS, RedisScript, redisCall, textFields } from "./redis-call.ts";

/** The sum a script counts: live reservations, plus settled costs at or after `since` (a cost the
 * caller's read of the request log may not hold yet); expired fields are deleted on the way. */
const SUM = `
local now = tonumber(ARGV[1])
local since = tonumber(ARGV[2])
local total = 0
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  local amount, expires, settled = string.match(fields[i + 1], '^(%S+) (%S+) ?(%S*)$')
  if tonumber(expires) <= now then redis.call('HDEL', KEYS[1], fields[i])
  elseif settled == '' or tonumber(settled) >= since then total = total + tonumber(amount) end
end`;

/** KEYS: the workflow's hash. ARGV: now, since, field, amount, expires, room (or '' for no check),
 * key ttl ms. Returns {ok, total after}: refused (ok 0) when total + amount exceeds room. */
const reserveScript = new RedisScript("workflow-reserve", `${SUM}
local amount = tonumber(ARGV[4])
if ARGV[6] ~= '' and total + amount > tonumber(ARGV[6]) + 1e-12 then return {'0', string.format('%.17g', total)} end
redis.call('HSET', KEYS[1], ARGV[3], ARGV[4] .. ' ' .. ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
return {'1', string.format('%.17g', total + amount)}`);

/** ARGV: now, since, field, cost, expires (the settled cost's), settledAt. Returns {total after}. */
const settleScript = new RedisScript("workflow-settle", `
if redis.call('HEXISTS', KEYS[1], ARGV[3]) == 1 then
  redis.call('HSET', KEYS[1], ARGV[3], ARGV[4] .. ' ' .. ARGV[5] .. ' ' .. ARGV[6])
end
${SUM}
return {string.format('%.17g', total)}`);

/** ARGV: now, since. Returns {total}. */
const totalScript = new RedisScript("workflow-total", `${SUM}
return {string.format('%.17g', total)}`);

const num = (x: number): string => x.toPrecision(17);

export interface WorkflowReservationStore {
  /** Adds `field` with `amount` if the workflow's total stays within `room` (null: unchecked). */
  reserve(workflow: string, field: string, amount: number, room: number | null, now: number, since: number, ttlMs: number): Promise<{ ok: boolean; total: number }>;
  /** The field becomes the attempt's actual cost, counted until `keepMs` from now by readers whose log read began before `now`. */
  settle(workflow: string, field: string, cost: number, now: number, since: number, keepMs: number): Promise<number>;
  release(workflow: string, field: string): Promise<void>;
  total(workflow: string, now: number, since: number): Promise<number>;
}

export class RedisWorkflowReservations implements WorkflowReservationStore {
  private readonly prefix: string;
  private readonly timeoutMs: number;

  constructor(private readonly client: RedisClient, options: { prefix?: string; timeoutMs?: number } = {}) {
    this.prefix = `${options.prefix ?? "gw:"}wfb:`;
    this.timeoutMs = options.timeoutMs ?? REDIS_TIMEOUT_MS;
  }

  async reserve(workflow: string, field: string, amount: number, room: number | null, now: number, since: number, ttlMs: number): Promise<{ ok: boolean; total: number }> {
    const reply = await reserveScript.run(this.client, [this.prefix + workflow],
      [String(now), String(since), field, num(amount), String(now + ttlMs), room === null ? "" : num(room), String(ttlMs)], this.timeoutMs);
    const [ok, total] = textFields(reply, "workflow-reserve");
    return { ok: ok === "1", total: Number(total) };
  }

  async settle(workflow: string, field: string, cost: number, now: number, since: number, keepMs: number): Promise<number> {
    const reply = await settleScript.run(this.client, [this.prefix + workflow], [String(now), String(since), field, num(cost), String(now + keepMs), String(now)], this.timeoutMs);
    return Number(textFields(reply, "workflow-settle")[0]);
  }

  async total(workflow: string, now: number, since: number): Promise<number> {
    const reply = await totalScript.run(this.client, [this.prefix + workflow], [String(now), String(since)], this.timeoutMs);
    return Number(textFields(reply, "workflow-total")[0]);
  }

  async release(workflow: string, field: string): Promise<void> {
    await redisCall(this.client, "HDEL", [this.prefix + workflow, field], this.timeoutMs);
  }
}
