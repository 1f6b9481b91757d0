// The Lua scripts the simulated pools run: gocraft/work v0.5.1's fetch and
// requeue, written for this simulator.

package demo

import "fmt"

// The simulated pools must change Redis exactly as gocraft/work v0.5.1's
// pools do, so each script below makes the same writes in the same order as
// the upstream operation it stands for (described next to it). They are
// written for this simulator, not taken from upstream.

// fetchKeysPerJobType is the number of KEYS the fetch script takes per job
// type: queue, in-progress list, paused, lock, lock_info, max_concurrency.
const fetchKeysPerJobType = 6

// luaFetchJob stands for a gocraft/work worker's fetch: walk the job types in
// the order given, and for the first one whose queue is not empty, that is
// not paused and whose lock is under max_concurrency (0 or unset: no cap; a
// missing lock: under it), count the job in lock and in lock_info[pool], then
// RPOPLPUSH it from the queue onto the pool's in-progress list. One atomic
// step, so lock, lock_info and the in-progress lists never disagree.
//
// KEYS: per job type the 6 keys of fetchKeysPerJobType; ARGV[1] = pool ID.
// Reply: {job, queue, in-progress list}, or nil when nothing can run.
var luaFetchJob = fmt.Sprintf(`
local pool = ARGV[1]
local stride = %d
for first = 1, #KEYS, stride do
  local queue, inprogress = KEYS[first], KEYS[first + 1]
  local paused, lock = KEYS[first + 2], KEYS[first + 3]
  local info, cap = KEYS[first + 4], KEYS[first + 5]
  if redis.call('llen', queue) > 0 and not redis.call('get', paused) then
    local limit = tonumber(redis.call('get', cap))
    local running = tonumber(redis.call('get', lock))
    local free = (limit == nil or limit == 0) or (running == nil or running < limit)
    if free then
      redis.call('incr', lock)
      redis.call('hincrby', info, pool, 1)
      local job = redis.call('rpoplpush', queue, inprogress)
      return {job, queue, inprogress}
    end
  end
end
return nil`, fetchKeysPerJobType)

// luaZremLpush stands for gocraft/work's retry requeuer: take the first job
// of the zset that is due, remove it, and LPUSH it onto its queue with `t`
// set to now when the pool knows its job type; otherwise add it to the dead
// zset, scored now, with err "unknown job when requeueing" and failed_at now.
//
// KEYS[1] = the zset, KEYS[2] = the dead zset, KEYS[3...] = the pool's
// queues; ARGV[1] = "<ns>:jobs:", ARGV[2] = now in epoch seconds.
// Reply: 'ok', 'dead', or nil when nothing is due.
const luaZremLpush = `
local due = redis.call('zrangebyscore', KEYS[1], '-inf', ARGV[2], 'LIMIT', 0, 1)
if #due == 0 then
  return nil
end
local raw = due[1]
local job = cjson.decode(raw)
redis.call('zrem', KEYS[1], raw)
local now = tonumber(ARGV[2])
local target = ARGV[1] .. job['name']
for i = 3, #KEYS do
  if KEYS[i] == target then
    job['t'] = now
    redis.call('lpush', target, cjson.encode(job))
    return 'ok'
  end
end
job['err'] = 'unknown job when requeueing'
job['failed_at'] = now
redis.call('zadd', KEYS[2], ARGV[2], cjson.encode(job))
return 'dead'
`
