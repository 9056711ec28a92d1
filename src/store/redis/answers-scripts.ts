// The exact cache's Lua scripts on Redis (docs/cache.md "Storage"). Names under ARGV[1] (the prefix):
// gen:P (the project's generation), P:G:e:KEY (hash i=id e=entry JSON t=tags JSON), P:G:t:TAG (set of
// keys), P:G:n (entries put, an upper bound), id:ID (-> the entry's name), seq (the id counter).
// Names are built inside the scripts from the generation, so this needs one Redis, not a Cluster.
import { RedisScript } from "./redis-call.ts";

const SCOPE = "local g = redis.call('GET', KEYS[1]) or '0' local scope = ARGV[1] .. ARGV[2] .. ':' .. g .. ':' ";

/** KEYS: gen, seq. ARGV: prefix, project, key, entry JSON, px, tags JSON, then each tag.
 * Reply: the new id and the replaced entry's id ('' when none). */
export const putScript = new RedisScript("answers-put", `${SCOPE}
local ek = scope .. 'e:' .. ARGV[3]
local px = tonumber(ARGV[5])
local id = redis.call('INCR', KEYS[2])
local old = redis.call('HGET', ek, 'i')
if old then redis.call('DEL', ARGV[1] .. 'id:' .. old) else
  redis.call('INCR', scope .. 'n')
  if redis.call('PTTL', scope .. 'n') < px then redis.call('PEXPIRE', scope .. 'n', px) end
end
redis.call('DEL', ek)
redis.call('HSET', ek, 'i', id, 'e', ARGV[4], 't', ARGV[6])
redis.call('PEXPIRE', ek, px)
redis.call('SET', ARGV[1] .. 'id:' .. id, ek, 'PX', px)
for i = 7, #ARGV do
  local tk = scope .. 't:' .. ARGV[i]
  redis.call('SADD', tk, ARGV[3])
  if redis.call('PTTL', tk) < px then redis.call('PEXPIRE', tk, px) end
end
return {tostring(id), old or ''}`);

/** KEYS: gen. ARGV: prefix, project, key. Reply: {id, entry JSON} or nil. */
export const getScript = new RedisScript("answers-get", `${SCOPE}
local v = redis.call('HMGET', scope .. 'e:' .. ARGV[3], 'i', 'e')
if not v[1] then return false end
return v`);

/** KEYS: gen. ARGV: prefix, project, id. Reply: {id, entry JSON} or nil when the id now names
 * nothing in the project's current generation. */
export const byIdScript = new RedisScript("answers-by-id", `${SCOPE}
local ek = redis.call('GET', ARGV[1] .. 'id:' .. ARGV[3])
if not ek or string.sub(ek, 1, #scope + 2) ~= scope .. 'e:' then return false end
local v = redis.call('HMGET', ek, 'i', 'e')
if v[1] ~= ARGV[3] then return false end
return v`);

/** KEYS: gen. ARGV: prefix, project, then each tag. Deletes the entries that still carry one of
 * the tags (a set may name a key since replaced without it). Reply: the removed ids. */
export const invalidateTagsScript = new RedisScript("answers-invalidate-tags", `${SCOPE}
local wanted = {}
for i = 3, #ARGV do wanted[ARGV[i]] = true end
local removed = {}
for i = 3, #ARGV do
  local tk = scope .. 't:' .. ARGV[i]
  for _, k in ipairs(redis.call('SMEMBERS', tk)) do
    local ek = scope .. 'e:' .. k
    local v = redis.call('HMGET', ek, 'i', 't')
    if v[1] then
      for _, t in ipairs(cjson.decode(v[2])) do
        if wanted[t] then
          redis.call('DEL', ek, ARGV[1] .. 'id:' .. v[1])
          removed[#removed + 1] = v[1]
          break
        end
      end
    end
  end
  redis.call('DEL', tk)
end
if #removed > 0 then redis.call('DECRBY', scope .. 'n', #removed) end
return removed`);

/** KEYS: gen. ARGV: prefix, project. One INCR empties the project: the old generation's names are
 * never read again and expire on their own. Reply: the old generation's entry count (a bound). */
export const invalidateAllScript = new RedisScript("answers-invalidate-all", `${SCOPE}
local n = tonumber(redis.call('GET', scope .. 'n') or '0')
redis.call('INCR', KEYS[1])
redis.call('DEL', scope .. 'n')
return math.max(0, n)`);
