-- jobs_queue_delete.lua: remove one job from a queue by its exact bytes
-- (every copy of them), with its unique key, in one atomic step.
--
-- KEYS[1]  the queue <ns>:jobs:<name>
-- KEYS[2]  (optional) the job's unique key, deleted when the job was found:
--          a job waiting in a queue holds it, as in gocraft/work
-- ARGV[1]  the job's exact bytes
--
-- Returns {'ok', removed, uniqueDeleted} or {'wrongtype', key} with
-- nothing written.

local t = redis.call('TYPE', KEYS[1])['ok']
if t ~= 'list' and t ~= 'none' then
  return {'wrongtype', KEYS[1]}
end
local n = redis.call('LREM', KEYS[1], 0, ARGV[1])
local u = 0
if n > 0 and #KEYS > 1 then
  u = redis.call('DEL', KEYS[2])
end
return {'ok', n, u}
