-- pause.lua: pause or unpause job types, all of them or none, in one atomic
-- step.
--
-- KEYS     the job types' pause keys  <ns>:jobs:<job>:paused
-- ARGV[1]  "pause" or "unpause"
--
-- gocraft/work v0.5.1's fetch script takes a job type as paused while its
-- pause key exists, whatever its value. Pause is SET key 1 where there is
-- no key (an existing pause, its value and expiry are left as they are);
-- unpause is DEL.
--
-- Returns {"ok", s1, s2, ...} with per key "paused", "already" (it was
-- paused), "unpaused" or "notpaused" (there was nothing to delete); or
-- {"refused", t1, t2, ...} with per key its Redis type when any key holds
-- something other than a string (which gocraft never writes there, and
-- which makes its fetch script fail): then nothing is changed. Every check
-- comes before the first write, because Redis does not roll a script back.

local op = ARGV[1]
if op ~= 'pause' and op ~= 'unpause' then
  return redis.error_reply('pause.lua: unknown operation ' .. tostring(op))
end

local types = {}
local refused = false
for i, key in ipairs(KEYS) do
  local t = redis.call('TYPE', key)['ok']
  types[i] = t
  if t ~= 'none' and t ~= 'string' then
    refused = true
  end
end
if refused then
  local out = {'refused'}
  for i = 1, #KEYS do
    out[i + 1] = types[i]
  end
  return out
end

local out = {'ok'}
for i, key in ipairs(KEYS) do
  if op == 'pause' then
    if types[i] == 'none' then
      redis.call('SET', key, '1')
      out[i + 1] = 'paused'
    else
      out[i + 1] = 'already'
    end
  else
    if types[i] == 'none' then
      out[i + 1] = 'notpaused'
    else
      redis.call('DEL', key)
      out[i + 1] = 'unpaused'
    end
  end
end
return out
