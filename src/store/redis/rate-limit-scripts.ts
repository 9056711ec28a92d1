// The rate limiter's two Lua scripts (docs/rate-limits.md): admission of one request against every
// level's RPM and TPM in one atomic call, and the settlement of its token estimate. Times are epoch
// ms stored as %.17g text, so fractional GCRA steps (7 rpm) stay exact across calls.
import { RedisScript } from "./redis-call.ts";

/** KEYS: one hash per level {r: request TAT, t: token TAT}. ARGV: now, tokens, window, epsilon,
 * grace, then rpm and tpm per level (0 = none). Reply: "ok" or "no", the refused level's index and
 * dimension and wait ("-1": never), then every level's r and t after the call. */
export const admitScript = new RedisScript("rate-limit-admit", `
local now, tokens, window, eps, grace = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local n = #KEYS
local r, t, rpm, tpm = {}, {}, {}, {}
for i = 1, n do
  local v = redis.call('HMGET', KEYS[i], 'r', 't')
  r[i] = tonumber(v[1]) or now
  t[i] = tonumber(v[2]) or now
  rpm[i] = tonumber(ARGV[4 + 2 * i])
  tpm[i] = tonumber(ARGV[5 + 2 * i])
end
local function wait(tat, cost, interval)
  local over = math.max(tat, now) + cost * interval - now - window
  if over > eps then return over end
  return 0
end
local function tats(head)
  for i = 1, n do
    head[#head + 1] = string.format('%.17g', r[i])
    head[#head + 1] = string.format('%.17g', t[i])
  end
  return head
end
for i = 1, n do
  if rpm[i] > 0 then
    local w = wait(r[i], 1, window / rpm[i])
    if w > 0 then return tats({'no', tostring(i), 'rpm', string.format('%.17g', w)}) end
  end
  if tpm[i] > 0 then
    if tokens > tpm[i] then return tats({'no', tostring(i), 'tpm', '-1'}) end
    local w = wait(t[i], tokens, window / tpm[i])
    if w > 0 then return tats({'no', tostring(i), 'tpm', string.format('%.17g', w)}) end
  end
end
for i = 1, n do
  if rpm[i] > 0 then r[i] = math.max(r[i], now) + window / rpm[i] end
  if tpm[i] > 0 then t[i] = math.max(t[i], now) + tokens * window / tpm[i] end
  if rpm[i] > 0 or tpm[i] > 0 then
    redis.call('HSET', KEYS[i], 'r', string.format('%.17g', r[i]), 't', string.format('%.17g', t[i]))
    redis.call('PEXPIRE', KEYS[i], math.ceil(math.max(r[i], t[i]) - now) + grace)
  end
end
return tats({'ok', '0', '', '0'})
`);

/** KEYS: the hashes charged at admission. ARGV: now, grace, then each key's change of token TAT in
 * ms. A key already expired is left absent (a full allowance: the leniency of a late answer). */
export const settleScript = new RedisScript("rate-limit-settle", `
local now, grace = tonumber(ARGV[1]), tonumber(ARGV[2])
for i = 1, #KEYS do
  local v = redis.call('HMGET', KEYS[i], 'r', 't')
  local t = tonumber(v[2])
  if t then
    t = t + tonumber(ARGV[2 + i])
    redis.call('HSET', KEYS[i], 't', string.format('%.17g', t))
    local keep = math.ceil(math.max(tonumber(v[1]) or t, t) - now) + grace
    if keep > redis.call('PTTL', KEYS[i]) then redis.call('PEXPIRE', KEYS[i], keep) end
  end
end
return 'ok'
`);
