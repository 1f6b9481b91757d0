-- The last step of a reap, once every in-progress list of the pool is empty:
-- delete the heartbeat, remove the pool from the set, and for each job type
-- subtract what is left of lock_info[pool] from lock, delete the field and
-- set lock to 0 if it went below, exactly as upstream's
-- redisLuaReapStaleLocks does. All in one script, so a second reaper finds
-- the pool gone and nothing left to subtract.
--
-- KEYS[1], KEYS[2], ARGV[1..3]: see check.lua.
-- Then per job type, 3 keys: in-progress list, lock, lock_info.
--
-- Reply: {'dead', lockBefore_1, lockAfter_1, held_1, ...} on success, with
-- '' for a missing value; {'alive'}, {'gone'}, {'notempty', key} or
-- {'error', reason} with nothing written (reason: see reap_batch.lua).

local state = poolState()
if state ~= 'dead' then
  return {state}
end
local n = (#KEYS - 2) / 3

for i = 0, n - 1 do
  local b = 3 + i * 3
  local why = badType(KEYS[b], 'list') or badLock(KEYS[b + 1], KEYS[b + 2])
  if why then
    return {'error', why}
  end
end
for i = 0, n - 1 do
  local b = 3 + i * 3
  if redis.call('llen', KEYS[b]) > 0 then
    return {'notempty', KEYS[b]}
  end
end

redis.call('del', heartbeatKey)
redis.call('srem', poolsKey, poolID)

local reply = {'dead'}
for i = 0, n - 1 do
  local b = 3 + i * 3
  local lockKey, infoKey = KEYS[b + 1], KEYS[b + 2]
  local before = redis.call('get', lockKey) or ''
  local held = redis.call('hget', infoKey, poolID)
  if held then
    redis.call('decrby', lockKey, held)
    redis.call('hdel', infoKey, poolID)
    if tonumber(redis.call('get', lockKey)) < 0 then
      redis.call('set', lockKey, 0)
    end
  end
  reply[2 + i * 3] = before
  reply[3 + i * 3] = redis.call('get', lockKey) or ''
  reply[4 + i * 3] = held or ''
end
return reply
