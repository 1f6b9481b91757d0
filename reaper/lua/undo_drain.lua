-- undo_drain.lua: put jobs a query took out of a queue back, each just
-- behind the job that was ahead of it when it was taken while that job is
-- still queued, else at the queue's head (they run next: the queue has
-- moved past their place), in one atomic step. Parked jobs leave the dead
-- set.
--
-- KEYS[1]    the queue
-- KEYS[2]    the dead set (a park's undo; the queue again for a delete's)
-- KEYS[3..]  unique keys of jobs of this call
-- ARGV, seven per job, in reverse run order (the last taken first):
--   its exact bytes in the queue,
--   its bytes in the dead set ('' for a delete),
--   the bytes of the job ahead of it ('' none: at the head),
--   the index in KEYS of its unique key (0: none to put back),
--   that key's value before, when it would have expired (Redis's clock in
--   ms; 0: never),
--   how far from the head the job can be if it is queued already (an undo
--   run before put it back, or its take never ran).
--
-- A parked job is put back only while it is in the dead set: one no longer
-- there was put back already ('b', found in the queue) or requeued or
-- deleted since ('m'). A deleted job found in the queue is left alone
-- ('b'). LINSERT puts a job just behind the one ahead of it (Redis looks
-- for that job from the tail, the back of the line); RPUSH at the head
-- when that job is gone. Jobs that were side by side go back in their
-- order because the last taken goes back first.
--
-- Returns {'ok', codes}: 'r' put back, 'u' with its unique key, 'e' its key
-- expired since, 'k' its key held by another, 'b' already back, 'm' moved
-- on; or {'wrongtype', key}.

local t = redis.call('TYPE', KEYS[1])['ok']
if t ~= 'list' and t ~= 'none' then
  return {'wrongtype', KEYS[1]}
end
if KEYS[2] ~= KEYS[1] then
  local d = redis.call('TYPE', KEYS[2])['ok']
  if d ~= 'zset' and d ~= 'none' then
    return {'wrongtype', KEYS[2]}
  end
end
local tm = redis.call('TIME')
local now = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)

-- queued looks for a job from the nearer end of its place: from the head
-- no further than bound, or, for a job deep in the line, from the tail.
local len = redis.call('LLEN', KEYS[1])
local function queued(job, bound)
  if bound > len / 2 then
    return redis.call('LPOS', KEYS[1], job) ~= false
  end
  return redis.call('LPOS', KEYS[1], job, 'RANK', -1, 'MAXLEN', math.max(1, bound)) ~= false
end

local codes = {}
for i = 1, #ARGV, 7 do
  local job, dead, ahead = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local u, bound = tonumber(ARGV[i + 3]), tonumber(ARGV[i + 6])
  local back = true
  if dead ~= '' then
    if redis.call('ZREM', KEYS[2], dead) == 0 then
      back = false
      if queued(job, bound) then
        codes[#codes + 1] = 'b'
      else
        codes[#codes + 1] = 'm'
      end
    end
  elseif queued(job, bound) then
    back = false
    codes[#codes + 1] = 'b'
  end
  if back then
    local put = -1
    if ahead ~= '' then
      put = redis.call('LINSERT', KEYS[1], 'BEFORE', ahead, job)
    end
    if put <= 0 then
      redis.call('RPUSH', KEYS[1], job)
    end
    len = len + 1
    local code = 'r'
    if u > 0 then
      local deadline = tonumber(ARGV[i + 5])
      if redis.call('EXISTS', KEYS[u]) == 1 then
        code = 'k'
      elseif deadline == 0 then
        redis.call('SET', KEYS[u], ARGV[i + 4])
        code = 'u'
      elseif deadline - now > 0 then
        redis.call('SET', KEYS[u], ARGV[i + 4], 'PX', deadline - now)
        code = 'u'
      else
        code = 'e'
      end
    end
    codes[#codes + 1] = code
  end
end
return {'ok', table.concat(codes)}
