-- requeue.lua: move up to ARGV[2] jobs of one in-progress list back onto its
-- queue, in one atomic step, and release the locks they still hold.
--
-- KEYS[1] the in-progress list  <ns>:jobs:<job>:<pool>:inprogress
-- KEYS[2] the job's queue       <ns>:jobs:<job>
-- KEYS[3] the job's lock        <ns>:jobs:<job>:lock
-- KEYS[4] the job's lock_info   <ns>:jobs:<job>:lock_info
-- KEYS[5] the pool's heartbeat  <ns>:worker_pools:<pool>
-- ARGV[1] the pool ID
-- ARGV[2] the most jobs to move in this call
-- ARGV[3] the dead-after cut-off in milliseconds
--
-- Returns {status, moved, remaining, lock, lock_info}. status is "ok", or
-- "alive" (the pool's heartbeat is fresh, or unreadable: nothing changed),
-- "wrongtype:<key>" or "badvalue:<key>" (nothing changed).
--
-- Every check comes before the first write: Redis does not roll a script
-- back, so a refusal must leave everything as it was.
--
-- Jobs move like gocraft/work's reaper moves them: RPOPLPUSH, the oldest
-- taken job first, onto the left end of the queue. For each job moved, lock
-- and lock_info[pool] are decremented together, but only while
-- lock_info[pool] is above 0 (an orphan's locks were usually released
-- already), and lock never goes below 0.

-- Redis before 5 replicates scripts verbatim unless told otherwise, and then
-- refuses writes after TIME; from 5 on this is the default and a no-op.
if redis.replicate_commands then
  redis.replicate_commands()
end

local function typeOf(key)
  return redis.call('TYPE', key)['ok']
end

local function isInt(n)
  return n ~= nil and n == math.floor(n)
end

local want = {{1, 'list'}, {2, 'list'}, {3, 'string'}, {4, 'hash'}, {5, 'hash'}}
for _, w in ipairs(want) do
  local t = typeOf(KEYS[w[1]])
  if t ~= 'none' and t ~= w[2] then
    return {'wrongtype:' .. KEYS[w[1]], 0, 0, 0, 0}
  end
end

local pool = ARGV[1]
local max = tonumber(ARGV[2])
local deadMs = tonumber(ARGV[3])

-- Alive check, against Redis's clock: the same rule as gocraft/work's
-- reaper (alive while heartbeat_at + cut-off is after now). A heartbeat_at
-- that is not a number is never taken for dead.
local hb = redis.call('HGET', KEYS[5], 'heartbeat_at')
if hb then
  local at = tonumber(hb)
  local t = redis.call('TIME')
  local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  if at == nil or at * 1000 + deadMs > nowMs then
    return {'alive', 0, redis.call('LLEN', KEYS[1]), 0, 0}
  end
end

local lockRaw = redis.call('GET', KEYS[3])
local lock = 0
if lockRaw then
  lock = tonumber(lockRaw)
  if not isInt(lock) then
    return {'badvalue:' .. KEYS[3], 0, 0, 0, 0}
  end
end
local infoRaw = redis.call('HGET', KEYS[4], pool)
local info = 0
if infoRaw then
  info = tonumber(infoRaw)
  if not isInt(info) then
    return {'badvalue:' .. KEYS[4], 0, 0, 0, 0}
  end
end

local moved = 0
while moved < max do
  if not redis.call('RPOPLPUSH', KEYS[1], KEYS[2]) then
    break
  end
  moved = moved + 1
end

local release = moved
if info < release then
  release = info
end
if release > 0 then
  info = redis.call('HINCRBY', KEYS[4], pool, -release)
  if lockRaw then
    local newLock = lock - release
    if newLock < 0 then
      newLock = 0
    end
    if newLock ~= lock then
      redis.call('SET', KEYS[3], newLock)
      lock = newLock
    end
  end
end

return {'ok', moved, redis.call('LLEN', KEYS[1]), lock, info}
