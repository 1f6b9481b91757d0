-- job_edit.lua: edit a member of a job set, or copy it onto its queue, only
-- while the member's exact bytes are still in the set at the score the
-- plan read, in one atomic step.
--
-- KEYS[1]  the job set (<ns>:retry, <ns>:scheduled or <ns>:dead)
-- KEYS[2]  the job's queue (<ns>:jobs:<name>)
-- KEYS[3]  the unique key of the member as it is (or KEYS[1] when unused)
-- KEYS[4]  the unique key of the new job (or KEYS[1] when unused)
-- ARGV[1]  'replace' (the member's bytes become ARGV[4], same score),
--          'requeue' (the member leaves the set; ARGV[4] .. now .. ARGV[5]
--          is pushed onto the queue) or 'copy' (the member stays; ARGV[4]
--          .. now .. ARGV[5] is pushed: a new job)
-- ARGV[2]  the member's exact bytes
-- ARGV[3]  its score as the plan read it
-- ARGV[4]  the new bytes (replace) or the new job before its `t` value
-- ARGV[5]  the new job after its `t` value ('' for replace)
-- ARGV[6]  what happens to unique keys: '' nothing; 'move' (replace of a
--          waiting unique job: the key KEYS[3] holds, when there, moves to
--          KEYS[4] with its value and time to live, as the job will be
--          known by it); 'set' (the new job waits in its queue: KEYS[4] is
--          set to "1" for 24 h, as EnqueueUnique does, and a key held
--          already refuses the call)
--
-- Returns {code, now, unique}: code 'e' replaced, 'q' requeued, 'c'
-- copied; 'g' the member is gone (or its bytes changed), 's' it is there
-- at another score, 'h' the new unique key is held by another job, 'x'
-- the new bytes are already a member of the set: nothing written for
-- these. now is Redis's clock (seconds) as read here: the `t` written.
-- unique is 'moved', 'set' or '' (nothing done to unique keys). Or
-- {'wrongtype', key} with nothing written.

if redis.replicate_commands then
  redis.replicate_commands()
end

local set, queue, oldKey, newKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local mode, old, score, a, b, uop = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]

local t = redis.call('TYPE', set)['ok']
if t ~= 'zset' and t ~= 'none' then
  return {'wrongtype', set}
end
if mode ~= 'replace' then
  t = redis.call('TYPE', queue)['ok']
  if t ~= 'list' and t ~= 'none' then
    return {'wrongtype', queue}
  end
end
if uop ~= '' then
  for _, k in ipairs({oldKey, newKey}) do
    t = redis.call('TYPE', k)['ok']
    if t ~= 'string' and t ~= 'none' then
      return {'wrongtype', k}
    end
  end
end

local now = redis.call('TIME')[1]
local cur = redis.call('ZSCORE', set, old)
if not cur then
  return {'g', now, ''}
end
if cur ~= score and tonumber(cur) ~= tonumber(score) then
  return {'s', now, ''}
end
if mode == 'replace' and redis.call('ZSCORE', set, a) then
  return {'x', now, ''}
end

local unique = ''
if uop == 'move' and oldKey ~= newKey and redis.call('EXISTS', oldKey) == 1 then
  if redis.call('EXISTS', newKey) == 1 then
    return {'h', now, ''}
  end
  unique = 'moved'
elseif uop == 'set' then
  if redis.call('EXISTS', newKey) == 1 then
    return {'h', now, ''}
  end
  unique = 'set'
end

if unique == 'moved' then
  local v = redis.call('GET', oldKey)
  local ttl = redis.call('PTTL', oldKey)
  if ttl > 0 then
    redis.call('SET', newKey, v, 'PX', ttl)
  else
    redis.call('SET', newKey, v)
  end
  redis.call('DEL', oldKey)
elseif unique == 'set' then
  redis.call('SET', newKey, '1', 'EX', 86400)
end

if mode == 'replace' then
  redis.call('ZREM', set, old)
  redis.call('ZADD', set, cur, a)
  return {'e', now, unique}
end
redis.call('LPUSH', queue, a .. now .. b)
if mode == 'requeue' then
  redis.call('ZREM', set, old)
  return {'q', now, unique}
end
return {'c', now, unique}
