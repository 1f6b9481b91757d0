-- throttle.lua: set a job type's max_concurrency, only while it still
-- holds the value the plan saw, in one atomic step.
--
-- KEYS[1]  <ns>:jobs:<job>:max_concurrency
-- ARGV[1]  the value the plan saw (decimal; an absent key reads as 0, as
--          gocraft/work v0.5.1's fetch script reads it)
-- ARGV[2]  the value to write (decimal, 0 = no cap)
--
-- Returns {status, before} where before is the key's bytes ("" when
-- absent) and status is "set" (written), "already" (it held the new value:
-- left alone), "moved" (it holds something else than the plan saw: left
-- alone) or "refused" (the key is not a string: before is its type).

local key = KEYS[1]
local t = redis.call('TYPE', key)['ok']
if t ~= 'none' and t ~= 'string' then
  return {'refused', t}
end
local before = ''
if t == 'string' then
  before = redis.call('GET', key)
end
local seen = tonumber(before == '' and '0' or before)
if seen == nil or seen ~= tonumber(ARGV[1]) then
  return {'moved', before}
end
if before == ARGV[2] then
  return {'already', before}
end
redis.call('SET', key, ARGV[2])
return {'set', before}
