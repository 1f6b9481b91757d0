-- jobs_delete.lua: delete members of a job set, each only if it is still in
-- the set (with the score the plan read, when it read one), with its unique
-- key where it holds one, in one atomic step.
--
-- KEYS[1]    the job set
-- KEYS[2..]  unique keys (<ns>:unique:<name>:<args>) of members of this call
-- ARGV, five per member:
--   the member's exact bytes, its score as Redis wrote it ('' for a member
--   of a bulk plan, which is taken at any score: its bytes are the job),
--   the index in KEYS of its unique key (0: none),
--   'a' to delete that key (a scheduled job holds it, as gocraft/work's
--   DeleteScheduledJob assumes) or 'o' to delete it only if its value is a
--   job with this member's id (a retry or dead job never holds the key in
--   gocraft/work: the worker deletes it before running the job, so a key
--   there now belongs to a newer copy),
--   the member's job id.
--
-- Returns {'ok', codes} with one character per member: 'd' deleted, 'u'
-- deleted with its unique key, 'g' gone, 's' still there at another score
-- (left alone); or {'wrongtype', key} with nothing written.

local t = redis.call('TYPE', KEYS[1])['ok']
if t ~= 'zset' and t ~= 'none' then
  return {'wrongtype', KEYS[1]}
end

local function owns(key, id)
  if redis.call('TYPE', key)['ok'] ~= 'string' then
    return false
  end
  local ok, job = pcall(cjson.decode, redis.call('GET', key))
  return ok and type(job) == 'table' and job['id'] == id
end

local codes = {}
for i = 1, #ARGV, 5 do
  local member = ARGV[i]
  local score = redis.call('ZSCORE', KEYS[1], member)
  if not score then
    codes[#codes + 1] = 'g'
  elseif ARGV[i + 1] ~= '' and score ~= ARGV[i + 1] and tonumber(score) ~= tonumber(ARGV[i + 1]) then
    codes[#codes + 1] = 's'
  else
    redis.call('ZREM', KEYS[1], member)
    local code = 'd'
    local u = tonumber(ARGV[i + 2])
    if u > 0 then
      local key = KEYS[u]
      if ARGV[i + 3] == 'a' or (ARGV[i + 3] == 'o' and owns(key, ARGV[i + 4])) then
        if redis.call('DEL', key) == 1 then
          code = 'u'
        end
      end
    end
    codes[#codes + 1] = code
  end
end
return {'ok', table.concat(codes)}
