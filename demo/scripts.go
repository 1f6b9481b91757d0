package demo

import "fmt"

// The Lua scripts below are gocraft/work v0.5.1's own (redis.go), copied
// verbatim so that the simulated pools change Redis exactly as real ones do.

// fetchKeysPerJobType is the number of KEYS the fetch script takes per job
// type: queue, in-progress list, paused, lock, lock_info, max_concurrency.
const fetchKeysPerJobType = 6

// luaFetchJob is redisLuaFetchJob: take the oldest job of the first job type
// that has one, is not paused and is under its max_concurrency, moving it to
// the pool's in-progress list and counting it in lock and lock_info, in one
// atomic step.
var luaFetchJob = fmt.Sprintf(`
local function acquireLock(lockKey, lockInfoKey, workerPoolID)
  redis.call('incr', lockKey)
  redis.call('hincrby', lockInfoKey, workerPoolID, 1)
end

local function haveJobs(jobQueue)
  return redis.call('llen', jobQueue) > 0
end

local function isPaused(pauseKey)
  return redis.call('get', pauseKey)
end

local function canRun(lockKey, maxConcurrency)
  local activeJobs = tonumber(redis.call('get', lockKey))
  if (not maxConcurrency or maxConcurrency == 0) or (not activeJobs or activeJobs < maxConcurrency) then
    -- default case: maxConcurrency not defined or set to 0 means no cap on concurrent jobs OR
    -- maxConcurrency set, but lock does not yet exist OR
    -- maxConcurrency set, lock is set, but not yet at max concurrency
    return true
  else
    -- we are at max capacity for running jobs
    return false
  end
end

local res, jobQueue, inProgQueue, pauseKey, lockKey, maxConcurrency, workerPoolID, concurrencyKey, lockInfoKey
local keylen = #KEYS
workerPoolID = ARGV[1]

for i=1,keylen,%d do
  jobQueue = KEYS[i]
  inProgQueue = KEYS[i+1]
  pauseKey = KEYS[i+2]
  lockKey = KEYS[i+3]
  lockInfoKey = KEYS[i+4]
  concurrencyKey = KEYS[i+5]

  maxConcurrency = tonumber(redis.call('get', concurrencyKey))

  if haveJobs(jobQueue) and not isPaused(pauseKey) and canRun(lockKey, maxConcurrency) then
    acquireLock(lockKey, lockInfoKey, workerPoolID)
    res = redis.call('rpoplpush', jobQueue, inProgQueue)
    return {res, jobQueue, inProgQueue}
  end
end
return nil`, fetchKeysPerJobType)

// luaZremLpush is redisLuaZremLpushCmd, the retry requeuer: move the first
// due job of a zset back to its queue (or to the dead zset when its job type
// is unknown to the pool).
//
// KEYS[1] = the zset, KEYS[2] = the dead zset, KEYS[3...] = known queues;
// ARGV[1] = "<ns>:jobs:", ARGV[2] = now in epoch seconds.
const luaZremLpush = `
local res, j, queue
res = redis.call('zrangebyscore', KEYS[1], '-inf', ARGV[2], 'LIMIT', 0, 1)
if #res > 0 then
  j = cjson.decode(res[1])
  redis.call('zrem', KEYS[1], res[1])
  queue = ARGV[1] .. j['name']
  for _,v in pairs(KEYS) do
    if v == queue then
      j['t'] = tonumber(ARGV[2])
      redis.call('lpush', queue, cjson.encode(j))
      return 'ok'
    end
  end
  j['err'] = 'unknown job when requeueing'
  j['failed_at'] = tonumber(ARGV[2])
  redis.call('zadd', KEYS[2], ARGV[2], cjson.encode(j))
  return 'dead' -- put on dead queue
end
return nil
`

// luaReapStaleLocks is redisLuaReapStaleLocks, run by upstream's dead pool
// reaper: subtract a dead pool's lock_info from lock for each job type and
// delete its field. The scenario uses it once, the way upstream reaps a pool
// whose heartbeat vanished, which is how orphaned in-progress lists come to
// be.
//
// KEYS = lock, lock_info pairs; ARGV[1] = the dead pool's ID.
const luaReapStaleLocks = `
local keylen = #KEYS
local lock, lockInfo, deadLockCount
local deadPoolID = ARGV[1]

for i=1,keylen,2 do
  lock = KEYS[i]
  lockInfo = KEYS[i+1]
  deadLockCount = tonumber(redis.call('hget', lockInfo, deadPoolID))

  if deadLockCount then
    redis.call('decrby', lock, deadLockCount)
    redis.call('hdel', lockInfo, deadPoolID)

    if tonumber(redis.call('get', lock)) < 0 then
      redis.call('set', lock, 0)
    end
  end
end
return nil
`
