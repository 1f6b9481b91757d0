-- Moves up to ARGV[4] in-progress jobs of a dead pool back to their queues.
--
-- KEYS[1], KEYS[2], ARGV[1..3]: see check.lua.
-- Then per job type, 4 keys: in-progress list, queue, lock, lock_info.
-- ARGV[4] = most jobs to move in this call.
--
-- Each job moves as upstream's reaper moves it (RPOPLPUSH from the
-- in-progress list onto the queue) together with its lock release, in this
-- same script: lock -1 and lock_info[pool] -1, both, and only while
-- lock_info[pool] > 0. Upstream releases unconditionally and lets its final
-- step subtract what is left of lock_info[pool]; lock - lock_info[pool] is
-- the same after either, so the end state after the final step is the same,
-- but a lock is never released for a job the pool no longer counts (no
-- double subtraction when other reapers run). When the field is missing it
-- is created as 0, as upstream's HINCRBY creates it, so that the final
-- step clamps lock at 0 exactly when upstream's does.
--
-- Reply: {state, remaining, moved_1, released_1, moved_2, released_2, ...}
-- where state is 'dead' (jobs moved), 'alive', 'gone' or 'error' (then
-- the second element is the reason, 'wrongtype:...' or 'badvalue:...',
-- and nothing was written).

local state = poolState()
local n = (#KEYS - 2) / 4
local reply = {state, 0}

if state ~= 'dead' then
  local remaining = 0
  for i = 0, n - 1 do
    if not badType(KEYS[3 + i * 4], 'list') then
      remaining = remaining + redis.call('llen', KEYS[3 + i * 4])
    end
  end
  reply[2] = remaining
  return reply
end

for i = 0, n - 1 do
  local b = 3 + i * 4
  local why = badType(KEYS[b], 'list') or badType(KEYS[b + 1], 'list') or badLock(KEYS[b + 2], KEYS[b + 3])
  if why then
    return {'error', why}
  end
end

local budget = tonumber(ARGV[4])
local remaining = 0
for i = 0, n - 1 do
  local b = 3 + i * 4
  local inProgress, queue, lockKey, infoKey = KEYS[b], KEYS[b + 1], KEYS[b + 2], KEYS[b + 3]
  local moved, released = 0, 0
  while budget > 0 do
    local job = redis.call('rpoplpush', inProgress, queue)
    if not job then
      break
    end
    budget = budget - 1
    moved = moved + 1
  end
  -- The lock release of the jobs moved, all at once: one job at a time
  -- would release 1 while lock_info[pool] > 0, so together they release
  -- min(moved, lock_info[pool]) (none when it is 0 or less). Same end state,
  -- three calls per batch instead of three per job.
  if moved > 0 then
    local held = redis.call('hget', infoKey, poolID)
    if not held then
      redis.call('hincrby', infoKey, poolID, 0)
    elseif tonumber(held) > 0 then
      released = moved
      if tonumber(held) < moved then
        released = tonumber(held)
      end
      redis.call('decrby', lockKey, released)
      redis.call('hincrby', infoKey, poolID, -released)
    end
  end
  remaining = remaining + redis.call('llen', inProgress)
  reply[3 + i * 2] = moved
  reply[4 + i * 2] = released
end
reply[2] = remaining
return reply
