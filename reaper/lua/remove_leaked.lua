-- remove_leaked.lua: remove one leaked in-progress entry (a stand-in
-- that gocraft/work master's worker left in its in-progress list after
-- running the job read from the unique key; see model.LeakedEntry), in one
-- atomic step.
--
-- KEYS[1]  the in-progress list <ns>:jobs:<job>:<pool>:inprogress
-- KEYS[2]  the job type's lock_info
-- ARGV[1]  the pool ID
-- ARGV[2]  the entry's exact bytes
--
-- The entry is removed (LREM, one copy) only while the list holds more
-- entries than lock_info[pool] counts: an entry the pool counts may be a
-- running job's. lock and lock_info are not touched (they never counted
-- it).
--
-- Returns {'ok', removed} (0 or 1) or {'wrongtype', key} with nothing
-- written.

local function typeOf(key)
  local t = redis.call('TYPE', key)
  if type(t) == 'table' then
    t = t['ok']
  end
  return t
end
for i, want in ipairs({'list', 'hash'}) do
  local t = typeOf(KEYS[i])
  if t ~= 'none' and t ~= want then
    return {'wrongtype', KEYS[i]}
  end
end
local held = tonumber(redis.call('HGET', KEYS[2], ARGV[1])) or 0
if redis.call('LLEN', KEYS[1]) <= math.max(held, 0) then
  return {'ok', 0}
end
return {'ok', redis.call('LREM', KEYS[1], 1, ARGV[2])}
