-- undo_pause.lua: lift a pause, or put back a pause an unpause deleted,
-- each only where the key is as the action left it, in one atomic step.
--
-- KEYS     pause keys <ns>:jobs:<job>:paused
-- ARGV, three per key:
--   'lift' (a pause set it: delete it only while it is the "1" without
--   expiry that pause wrote) or 'restore' (an unpause deleted it: set it
--   again only while it is absent),
--   the value to restore,
--   when the restored key expires: Redis's clock in milliseconds (0: never).
--
-- Returns {'ok', codes} with one character per key: 'r' done, 'b' already
-- as before the action (absent for a lift, there with the same value for a
-- restore), 'm' moved on (changed since: left alone), 'e' the restored
-- pause would have expired already.

local tm = redis.call('TIME')
local now = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)

local codes = {}
for i, key in ipairs(KEYS) do
  local op, value, deadline = ARGV[3 * i - 2], ARGV[3 * i - 1], tonumber(ARGV[3 * i])
  local t = redis.call('TYPE', key)['ok']
  local code
  if op == 'lift' then
    if t == 'none' then
      code = 'b'
    elseif t == 'string' and redis.call('GET', key) == '1' and redis.call('PTTL', key) == -1 then
      redis.call('DEL', key)
      code = 'r'
    else
      code = 'm'
    end
  else
    if t == 'string' and redis.call('GET', key) == value then
      code = 'b'
    elseif t ~= 'none' then
      code = 'm'
    elseif deadline == 0 then
      redis.call('SET', key, value)
      code = 'r'
    elseif deadline - now > 0 then
      redis.call('SET', key, value, 'PX', deadline - now)
      code = 'r'
    else
      code = 'e'
    end
  end
  codes[#codes + 1] = code
end
return {'ok', table.concat(codes)}
