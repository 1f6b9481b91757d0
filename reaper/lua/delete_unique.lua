-- delete_unique.lua: delete one unique key of gocraft/work
-- (<ns>:unique:<job>:<args>, its name ending in a newline byte), only while
-- it holds the value the plan read, in one atomic step.
--
-- KEYS[1]  the unique key
-- ARGV[1]  its value as the plan read it ("1" in v0.5.1; in gocraft/work
--          master and gojek/work the job a refused enqueue wrote there)
--
-- A key that now holds another value (a new enqueue rewrote it) is left
-- alone: that enqueue's job is the one the key now stands for.
--
-- Returns {'ok', status}: 'deleted', 'changed' (another value: left
-- alone) or 'absent' (expired, or deleted by a worker or someone else);
-- {'wrongtype', key} with nothing written.

local t = redis.call('TYPE', KEYS[1])
if type(t) == 'table' then
  t = t['ok']
end
if t == 'none' then
  return {'ok', 'absent'}
end
if t ~= 'string' then
  return {'wrongtype', KEYS[1]}
end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return {'ok', 'changed'}
end
redis.call('DEL', KEYS[1])
return {'ok', 'deleted'}
