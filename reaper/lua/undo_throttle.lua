-- undo_throttle.lua: put back max_concurrency values a throttle replaced,
-- each only while the key still holds what the throttle wrote, in one
-- atomic step.
--
-- KEYS     <ns>:jobs:<job>:max_concurrency keys
-- ARGV, three per key: the value the throttle wrote, "1" when the key was
-- there before ("0" when absent), the value before.
--
-- Returns {'ok', codes} with one character per key: 'r' put back, 'b'
-- already as before, 'm' moved on (a pool start or someone else wrote it
-- since: left alone).

local codes = {}
for i, key in ipairs(KEYS) do
  local wrote, existed, before = ARGV[3 * i - 2], ARGV[3 * i - 1], ARGV[3 * i]
  local t = redis.call('TYPE', key)['ok']
  local cur = nil
  if t == 'string' then
    cur = redis.call('GET', key)
  end
  local code
  if t == 'none' then
    code = (existed == '0') and 'b' or 'm'
  elseif cur == wrote then
    if existed == '1' then
      redis.call('SET', key, before)
    else
      redis.call('DEL', key)
    end
    code = 'r'
  elseif existed == '1' and cur == before then
    code = 'b'
  else
    code = 'm'
  end
  codes[#codes + 1] = code
end
return {'ok', table.concat(codes)}
