// Package upstreamref holds Lua scripts that make the same writes, in the
// same order, as the steps of gocraft/work v0.5.1's dead pool reaper. Tests
// and benchmarks use them as the reference ("what would upstream do?") and
// the demo uses them to play upstream's part. They are written for this
// project from the description of upstream's behaviour, not taken from it.
package upstreamref

// ReenqueueKeysPerJob is the number of KEYS ReenqueueOne takes per job type.
const ReenqueueKeysPerJob = 4

// ReenqueueOne moves ONE job of a dead pool back, as upstream's reaper does
// per script call: for the first job type (in KEYS order) whose in-progress
// list is not empty, RPOPLPUSH from the in-progress list onto the queue,
// then DECR lock and HINCRBY lock_info[pool] -1, unconditionally.
//
// KEYS: per job type in-progress list, queue, lock, lock_info; ARGV[1] =
// pool ID. Reply: {job, in-progress list, queue}, or nil when every list is
// empty.
const ReenqueueOne = `
local pool = ARGV[1]
for first = 1, #KEYS, 4 do
  local inprogress, queue = KEYS[first], KEYS[first + 1]
  local lock, info = KEYS[first + 2], KEYS[first + 3]
  local job = redis.call('rpoplpush', inprogress, queue)
  if job then
    redis.call('decr', lock)
    redis.call('hincrby', info, pool, -1)
    return {job, inprogress, queue}
  end
end
return nil`

// ReapStaleLocks is upstream's last reaper step: for each job type where the
// dead pool has a lock_info field, DECRBY lock by it, HDEL the field, and
// SET lock to 0 if it went below.
//
// KEYS = lock, lock_info pairs; ARGV[1] = the dead pool's ID.
const ReapStaleLocks = `
local pool = ARGV[1]
for first = 1, #KEYS, 2 do
  local lock, info = KEYS[first], KEYS[first + 1]
  local held = tonumber(redis.call('hget', info, pool))
  if held then
    redis.call('decrby', lock, held)
    redis.call('hdel', info, pool)
    if tonumber(redis.call('get', lock)) < 0 then
      redis.call('set', lock, 0)
    end
  end
end
return nil
`
