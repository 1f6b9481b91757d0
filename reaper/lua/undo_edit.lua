-- undo_edit.lua: put back a job an edit replaced or requeued, or take out
-- the copy a duplicate pushed, only while what the action wrote is still
-- where it left it, in one atomic step.
--
-- KEYS[1]  the job set the job was in
-- KEYS[2]  its queue
-- KEYS[3]  the unique key the job had before (or KEYS[1] when unused)
-- KEYS[4]  the unique key the action moved or set (or KEYS[1] when unused)
-- ARGV[1]  'replace', 'requeue' or 'copy', as the action did
-- ARGV[2]  the member's bytes before the action
-- ARGV[3]  its score before
-- ARGV[4]  the bytes the action wrote ('' when not known: the action's
--          reply was never read and they were not found)
-- ARGV[5]  what the action did to unique keys: '', 'moved' or 'set'
-- ARGV[6]  the value of the unique key before (moved)
-- ARGV[7]  when it expired: Redis's clock in milliseconds (0: never)
--
-- A replaced member goes back to its old bytes at the score the edited one
-- has now; a requeued one comes out of the queue (one copy, LREM 1) and
-- back into the set at its old score; a copy comes out of the queue. A
-- unique key moved goes back (while the job's own key is absent and had
-- time to live left); one set is deleted while it holds "1".
--
-- Returns {'ok', code}: 'r' put back, 'b' already as before (the old bytes
-- are in the set), 'm' moved on (what the action wrote is not where it
-- left it: left alone); or {'wrongtype', key} with nothing written.

local set, queue, oldKey, newKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local mode, old, score, wrote, uop, value, deadline =
  ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], tonumber(ARGV[7])

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

if mode ~= 'copy' and redis.call('ZSCORE', set, old) then
  return {'ok', 'b'}
end
if wrote == '' then
  return {'ok', 'm'}
end
if mode == 'replace' then
  local cur = redis.call('ZSCORE', set, wrote)
  if not cur then
    return {'ok', 'm'}
  end
  redis.call('ZREM', set, wrote)
  redis.call('ZADD', set, cur, old)
else
  if redis.call('LREM', queue, 1, wrote) ~= 1 then
    return {'ok', 'm'}
  end
  if mode == 'requeue' then
    redis.call('ZADD', set, score, old)
  end
end

if uop == 'set' then
  if redis.call('TYPE', newKey)['ok'] == 'string' and redis.call('GET', newKey) == '1' then
    redis.call('DEL', newKey)
  end
elseif uop == 'moved' then
  local tm = redis.call('TIME')
  local now = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
  if redis.call('TYPE', newKey)['ok'] == 'string' and redis.call('GET', newKey) == value then
    redis.call('DEL', newKey)
  end
  if redis.call('EXISTS', oldKey) == 0 then
    if deadline == 0 then
      redis.call('SET', oldKey, value)
    elseif deadline > now then
      redis.call('SET', oldKey, value, 'PX', deadline - now)
    end
  end
end
return {'ok', 'r'}
