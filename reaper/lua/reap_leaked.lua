-- Removes a dead pool's leaked in-progress entries before its reap moves
-- the rest: stand-ins that gocraft/work master's workers left in the
-- list after running the job read from the unique key (see
-- model.LeakedEntry). Requeued, one would run its job again with older
-- arguments. They are not counted in lock_info, so no lock changes.
--
-- KEYS[1], KEYS[2], ARGV[1..3]: see check.lua.
-- Then per entry, 2 keys: its in-progress list, its job type's lock_info;
-- ARGV[3 + i] = entry i's exact bytes.
--
-- Each entry is removed (LREM, one copy) only while its list holds more
-- entries than lock_info[pool] counts: one the pool counts is a running
-- job's, left for the reap to move.
--
-- Reply: {state, removed_1, removed_2, ...} (0 or 1 each); state as in
-- reap_batch.lua ('error' with the reason, nothing written).

local state = poolState()
if state ~= 'dead' then
  return {state}
end
local n = (#KEYS - 2) / 2
for i = 0, n - 1 do
  local why = badType(KEYS[3 + i * 2], 'list') or badType(KEYS[4 + i * 2], 'hash')
  if why then
    return {'error', why}
  end
end
local reply = {state}
for i = 0, n - 1 do
  local list, info = KEYS[3 + i * 2], KEYS[4 + i * 2]
  local held = tonumber(redis.call('hget', info, poolID)) or 0
  local removed = 0
  if redis.call('llen', list) > math.max(held, 0) then
    removed = redis.call('lrem', list, 1, ARGV[4 + i])
  end
  reply[#reply + 1] = removed
end
return reply
