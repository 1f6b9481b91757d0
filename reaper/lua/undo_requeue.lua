-- undo_requeue.lua: put requeued jobs back into their set, each only if it
-- is still in its queue with the exact bytes the requeue pushed, in one
-- atomic step.
--
-- KEYS[1]    the job set the jobs came from
-- KEYS[2..]  their queues
-- ARGV, four per job:
--   the bytes the requeue pushed ('' when the journal does not know them:
--   the requeue's reply was never read and no such job is in the queue),
--   the job's bytes in the set before, its score there as Redis wrote it,
--   the index in KEYS of its queue.
--
-- A job whose old bytes are in the set already is left alone (an undo run
-- before put it back, or someone else did). Otherwise one copy of the
-- pushed bytes is removed from the queue (LREM 1) and the old bytes go back
-- into the set at the old score; a job not in the queue was taken by a
-- worker (or deleted) and is left alone.
--
-- Returns {'ok', codes} with one character per job: 'r' put back, 'b'
-- already back in the set, 'm' moved on (not in its queue); or
-- {'wrongtype', key} with nothing written.

local t = redis.call('TYPE', KEYS[1])['ok']
if t ~= 'zset' and t ~= 'none' then
  return {'wrongtype', KEYS[1]}
end
for i = 2, #KEYS do
  t = redis.call('TYPE', KEYS[i])['ok']
  if t ~= 'list' and t ~= 'none' then
    return {'wrongtype', KEYS[i]}
  end
end

local codes = {}
for i = 1, #ARGV, 4 do
  local new, old, score, q = ARGV[i], ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 3])
  if redis.call('ZSCORE', KEYS[1], old) then
    codes[#codes + 1] = 'b'
  elseif new ~= '' and redis.call('LREM', KEYS[q], 1, new) == 1 then
    redis.call('ZADD', KEYS[1], score, old)
    codes[#codes + 1] = 'r'
  else
    codes[#codes + 1] = 'm'
  end
end
return {'ok', table.concat(codes)}
