-- undo_queue.lua: put a job deleted from its queue back, with its unique
-- key, in one atomic step.
--
-- KEYS[1]  the queue
-- KEYS[2]  (optional) the job's unique key, deleted with it
-- ARGV[1]  the job's exact bytes
-- ARGV[2]  how many copies the delete removed
-- ARGV[3]  the unique key's value before the delete
-- ARGV[4]  when that key would have expired: Redis's clock in milliseconds
--          (0: never)
--
-- A queue that holds the bytes already is left alone (an undo run before
-- put them back, or someone else did). Otherwise the copies go back at the
-- head of the queue (LPUSH: the back of the line, as gocraft/work's
-- requeues push), and the unique key when it is absent and its time to
-- live has not run out, with what is left of it.
--
-- Returns {'ok', code}: 'r' put back, 'u' with its unique key, 'e' its
-- unique key expired since, 'k' its unique key held by another, 'b'
-- already back; or {'wrongtype', key} with nothing written.

local t = redis.call('TYPE', KEYS[1])['ok']
if t ~= 'list' and t ~= 'none' then
  return {'wrongtype', KEYS[1]}
end
if redis.call('LPOS', KEYS[1], ARGV[1]) then
  return {'ok', 'b'}
end
for _ = 1, math.max(1, tonumber(ARGV[2])) do
  redis.call('LPUSH', KEYS[1], ARGV[1])
end
local code = 'r'
if #KEYS > 1 then
  local tm = redis.call('TIME')
  local now = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
  local deadline = tonumber(ARGV[4])
  if redis.call('EXISTS', KEYS[2]) == 1 then
    code = 'k'
  elseif deadline == 0 then
    redis.call('SET', KEYS[2], ARGV[3])
    code = 'u'
  elseif deadline - now > 0 then
    redis.call('SET', KEYS[2], ARGV[3], 'PX', deadline - now)
    code = 'u'
  else
    code = 'e'
  end
end
return {'ok', code}
