-- Shared prelude of the reap scripts (reap_batch.lua and reap_final.lua are
-- each loaded after it; see scripts.go).
--
-- KEYS[1] = <ns>:worker_pools
-- KEYS[2] = <ns>:worker_pools:<pool> (the heartbeat hash)
-- ARGV[1] = pool ID
-- ARGV[2] = heartbeat_at the plan saw, or '' when the plan saw none
-- ARGV[3] = the dead cut-off in milliseconds
--
-- Only redis.call, tonumber, tostring and string functions are used, so the
-- scripts run on Redis 2.8+ and on miniredis alike. No cjson.

-- TIME before writes needs effects replication on Redis < 5 (on 5+ it is
-- the default and the call is a harmless no-op).
if redis.replicate_commands then
  redis.replicate_commands()
end

local poolsKey = KEYS[1]
local heartbeatKey = KEYS[2]
local poolID = ARGV[1]
local expectedBeat = ARGV[2]
local deadAfterMs = tonumber(ARGV[3])

local function isInt(v)
  return type(v) == 'string' and string.match(v, '^%-?%d+$') ~= nil
end

-- still dead: 'dead', 'alive' (it beat again) or 'gone' (not in the set).
local function poolState()
  if redis.call('sismember', poolsKey, poolID) == 0 then
    return 'gone'
  end
  local beat = redis.call('hget', heartbeatKey, 'heartbeat_at')
  if expectedBeat == '' then
    -- the plan saw no heartbeat: it must still be missing
    if beat then
      return 'alive'
    end
    return 'dead'
  end
  if not beat then
    -- deleted since the plan, pool still in the set: dead by upstream's rule
    return 'dead'
  end
  if beat == expectedBeat then
    return 'dead'
  end
  local at = tonumber(beat)
  if not at or not isInt(beat) then
    return 'alive'
  end
  local t = redis.call('time')
  local nowMs = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
  if at * 1000 + deadAfterMs <= nowMs then
    return 'dead'
  end
  return 'alive'
end

-- badType returns nil when key is missing or of type want, else the reason
-- ('wrongtype:' and a sentence naming the key). Checked before any write,
-- so that a script never fails half-way (Redis keeps the writes of a
-- script that errors).
local function badType(key, want)
  local t = redis.call('type', key)
  if type(t) == 'table' then
    t = t['ok']
  end
  if t ~= 'none' and t ~= want then
    return 'wrongtype:key ' .. key .. ' is a ' .. t .. ', want a ' .. want
  end
  return nil
end

-- badLock returns nil when the lock key and lock_info[pool] are missing or
-- hold integers, else the reason ('wrongtype:' or 'badvalue:' and a
-- sentence).
local function badLock(lockKey, infoKey)
  local why = badType(lockKey, 'string') or badType(infoKey, 'hash')
  if why then
    return why
  end
  local v = redis.call('get', lockKey)
  if v and not isInt(v) then
    return 'badvalue:key ' .. lockKey .. ' holds ' .. string.sub(v, 1, 40) .. ', not an integer'
  end
  local f = redis.call('hget', infoKey, poolID)
  if f and not isInt(f) then
    return 'badvalue:field ' .. poolID .. ' of ' .. infoKey .. ' holds ' .. string.sub(f, 1, 40) .. ', not an integer'
  end
  return nil
end
