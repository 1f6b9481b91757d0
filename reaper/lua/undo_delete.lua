-- undo_delete.lua: put deleted jobs back into their set at their old
-- score, with their unique key where it was deleted with them, in one
-- atomic step.
--
-- KEYS[1]    the job set
-- KEYS[2..]  unique keys of jobs of this call
-- ARGV, five per job:
--   the job's exact bytes, its score as Redis wrote it,
--   the index in KEYS of its unique key (0: none to put back),
--   the key's value before the delete,
--   when the key would have expired: Redis's clock in milliseconds (0:
--   never).
--
-- A job in the set already is left alone (an undo run before put it back,
-- or someone else did). A unique key is put back only when it is absent
-- (a newer copy's key is never touched) and its time to live has not run
-- out, with what is left of it.
--
-- Returns {'ok', codes} with one character per job: 'r' put back, 'u' put
-- back with its unique key, 'e' put back, its unique key expired since, 'k'
-- put back, its unique key held by another (left alone), 'b' already back;
-- or {'wrongtype', key} with nothing written.

local t = redis.call('TYPE', KEYS[1])['ok']
if t ~= 'zset' and t ~= 'none' then
  return {'wrongtype', KEYS[1]}
end

local tm = redis.call('TIME')
local now = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)

local codes = {}
for i = 1, #ARGV, 5 do
  local old, score, u = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  if redis.call('ZSCORE', KEYS[1], old) then
    codes[#codes + 1] = 'b'
  else
    redis.call('ZADD', KEYS[1], score, old)
    local code = 'r'
    if u > 0 then
      local deadline = tonumber(ARGV[i + 4])
      if redis.call('EXISTS', KEYS[u]) == 1 then
        code = 'k'
      elseif deadline == 0 then
        redis.call('SET', KEYS[u], ARGV[i + 3])
        code = 'u'
      elseif deadline - now > 0 then
        redis.call('SET', KEYS[u], ARGV[i + 3], 'PX', deadline - now)
        code = 'u'
      else
        code = 'e'
      end
    end
    codes[#codes + 1] = code
  end
end
return {'ok', table.concat(codes)}
